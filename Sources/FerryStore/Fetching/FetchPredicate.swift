/// A condition on objects, as Core Data's `NSPredicate`: parsed from a format string or built in Swift, printed
/// back as a format string, and compiled to SQL with bound parameters.
///
/// ```swift
/// let cheap = try FetchPredicate(format: "price < %@ AND category.name ==[c] %@", 10, "coffee")
/// let same: FetchPredicate = .keyPath("price") < 10 && .compare(.keyPath("category.name"), .equalTo, "coffee",
///                                                           options: .caseInsensitive)
/// let template = try FetchPredicate(format: "price >= $MIN_PRICE").substituting(["MIN_PRICE": .double(10)])
/// ```
///
/// The value is a plain tree: two predicates are equal when their trees are equal, and
/// `try FetchPredicate(format: p.description) == p` for every predicate whose key paths are identifiers.
public indirect enum FetchPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`: every object.
    case truePredicate
    /// `FALSEPREDICATE`: no object.
    case falsePredicate
    /// A comparison such as `price > 10` or `ANY tags.label ==[c] "tea"`.
    case comparison(Comparison)
    /// `lhs AND rhs`.
    case and(FetchPredicate, FetchPredicate)
    /// `lhs OR rhs`.
    case or(FetchPredicate, FetchPredicate)
    /// `NOT predicate`.
    case not(FetchPredicate)
}

extension FetchPredicate {
    /// One side of a comparison: a key path, `SELF`, a constant, a `$VARIABLE`, an array literal or a subquery's
    /// count.
    public indirect enum Expression: Sendable, Hashable {
        /// A dotted key path such as `name`, `category.name`, `products.@count` or `products.price.@sum` (the
        /// aggregates `@count`, `@sum`, `@avg`, `@min` and `@max` of an attribute of a to-many relationship's
        /// objects).
        case keyPath(String)
        /// `SELF`: the object itself (in SQL, its primary key).
        case evaluatedObject
        /// A constant; `nil` is `nil`/`NULL` in a format string.
        case constant(AttributeValue?)
        /// `$NAME`, replaced by ``FetchPredicate/substituting(_:)``.
        case variable(String)
        /// An array literal such as `{1, 2, 3}` (for `IN` and `BETWEEN`).
        case aggregate([Expression])
        /// `SUBQUERY(collection, $x, predicate).@count`: how many objects of a to-many relationship match a
        /// predicate.
        case subquery(Subquery)
    }

    /// How a comparison compares its two sides.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==` (also `=`); with nil, `IS NULL`.
        case equalTo = "=="
        /// `!=` (also `<>`); true for objects without a value, unless compared with nil.
        case notEqualTo = "!="
        /// `<`.
        case lessThan = "<"
        /// `<=` (also `=<`).
        case lessThanOrEqualTo = "<="
        /// `>`.
        case greaterThan = ">"
        /// `>=` (also `=>`).
        case greaterThanOrEqualTo = ">="
        /// Inclusive range: the right side is `{low, high}`.
        case between = "BETWEEN"
        /// Membership in an array (or, with a to-many key path on the right, in a relationship).
        case `in` = "IN"
        /// The string starts with the right side.
        case beginsWith = "BEGINSWITH"
        /// The string ends with the right side.
        case endsWith = "ENDSWITH"
        /// The string contains the right side.
        case contains = "CONTAINS"
        /// Whole-string match with `*` (any run of characters) and `?` (one character).
        case like = "LIKE"
        /// Whole-string match against a regular expression.
        case matches = "MATCHES"
    }

    /// String comparison options: `[c]`, `[d]`, `[cd]`.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits: 1 for `[c]`, 2 for `[d]`.
        public var rawValue: Int
        /// Options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `[c]`: "Coffee" ==[c] "COFFEE", Unicode-aware.
        public static let caseInsensitive = Options(rawValue: 1 << 0)
        /// `[d]`: "Café" ==[d] "Cafe".
        public static let diacriticInsensitive = Options(rawValue: 1 << 1)
    }

    /// How a comparison treats a key path through a to-many relationship.
    public enum Modifier: String, Sendable, Hashable, CaseIterable {
        /// A plain comparison (no to-many key path, or `@count`).
        case direct = ""
        /// `ANY` (or `SOME`): at least one related object matches.
        case any = "ANY"
        /// `ALL`: every related object matches (true when there are none).
        case all = "ALL"
        /// `NONE`: no related object matches (true when there are none).
        case none = "NONE"
    }

    /// `[modifier] lhs operator[options] rhs`.
    public struct Comparison: Sendable, Hashable {
        /// The left side; with a modifier, a key path through a to-many relationship.
        public var lhs: Expression
        /// How the sides compare.
        public var `operator`: Operator
        /// The right side.
        public var rhs: Expression
        /// `[c]`, `[d]`; they only affect strings.
        public var options: Options
        /// `ANY`, `ALL`, `NONE`, or none.
        public var modifier: Modifier

        /// Creates a comparison.
        public init(
            _ lhs: Expression, _ operator: Operator, _ rhs: Expression, options: Options = [],
            modifier: Modifier = .direct
        ) {
            self.lhs = lhs
            self.operator = `operator`
            self.rhs = rhs
            self.options = options
            self.modifier = modifier
        }
    }
}

extension FetchPredicate {
    /// Calls `body` on every comparison, depth first, left to right.
    func forEachComparison(_ body: (Comparison) throws -> Void) rethrows {
        switch self {
        case .truePredicate, .falsePredicate: break
        case .comparison(let comparison): try body(comparison)
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            try lhs.forEachComparison(body)
            try rhs.forEachComparison(body)
        case .not(let predicate): try predicate.forEachComparison(body)
        }
    }

    /// The predicate with every expression replaced by `transform`'s result.
    func mapExpressions(_ transform: (Expression) throws -> Expression) rethrows -> FetchPredicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .comparison(var comparison):
            comparison.lhs = try transform(comparison.lhs)
            comparison.rhs = try transform(comparison.rhs)
            return .comparison(comparison)
        case .and(let lhs, let rhs): return .and(try lhs.mapExpressions(transform), try rhs.mapExpressions(transform))
        case .or(let lhs, let rhs): return .or(try lhs.mapExpressions(transform), try rhs.mapExpressions(transform))
        case .not(let predicate): return .not(try predicate.mapExpressions(transform))
        }
    }

    /// The names of the `$VARIABLE`s left in the predicate, in order of first appearance. A variable followed by a
    /// key path is one name with the path: `$FETCH_SOURCE.category` gives `FETCH_SOURCE.category`.
    public var variableNames: [String] {
        var names: [String] = []
        func collect(_ expression: Expression) {
            switch expression {
            case .variable(let name): if !names.contains(name) { names.append(name) }
            case .aggregate(let elements): elements.forEach(collect)
            case .subquery(let subquery):
                for name in subquery.predicate.variableNames where !names.contains(name) { names.append(name) }
            default: break
            }
        }
        forEachComparison { comparison in
            collect(comparison.lhs)
            collect(comparison.rhs)
        }
        return names
    }
}
