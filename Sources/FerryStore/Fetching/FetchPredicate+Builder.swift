/// Building predicates in Swift, without format strings.
///
/// ```swift
/// let predicate: FetchPredicate = .keyPath("price") > 10 && .keyPath("category.name").in(["Tea", "Coffee"])
///     || .any(.keyPath("tags.label").beginsWith("org", options: [.caseInsensitive]))
///     || !(.keyPath("products.@count") == 0)
/// ```
///
/// Literals on either side are constants (`"Tea"` is a string, never a key path); key paths are always spelled
/// `.keyPath(…)`. The comparison operators return a ``FetchPredicate``, so they need a `FetchPredicate` context; compared
/// in a `Bool` context, expressions use their ordinary `Equatable` equality.
extension FetchPredicate.Expression {
    /// `lhs == rhs`.
    public static func == (lhs: Self, rhs: Self) -> FetchPredicate { .compare(lhs, .equalTo, rhs) }
    /// `lhs != rhs`.
    public static func != (lhs: Self, rhs: Self) -> FetchPredicate { .compare(lhs, .notEqualTo, rhs) }
    /// `lhs < rhs`.
    public static func < (lhs: Self, rhs: Self) -> FetchPredicate { .compare(lhs, .lessThan, rhs) }
    /// `lhs <= rhs`.
    public static func <= (lhs: Self, rhs: Self) -> FetchPredicate { .compare(lhs, .lessThanOrEqualTo, rhs) }
    /// `lhs > rhs`.
    public static func > (lhs: Self, rhs: Self) -> FetchPredicate { .compare(lhs, .greaterThan, rhs) }
    /// `lhs >= rhs`.
    public static func >= (lhs: Self, rhs: Self) -> FetchPredicate { .compare(lhs, .greaterThanOrEqualTo, rhs) }

    /// `self BETWEEN {low, high}`, inclusive.
    public func between(_ low: Self, _ high: Self) -> FetchPredicate {
        .compare(self, .between, .aggregate([low, high]))
    }

    /// `self IN values`, where `values` is an array literal (`["a", "b"]`) or a to-many key path.
    public func `in`(_ values: Self, options: FetchPredicate.Options = []) -> FetchPredicate {
        .compare(self, .in, values, options: options)
    }

    /// `self ==[options] other`, for case- or diacritic-insensitive equality.
    public func equals(_ other: Self, options: FetchPredicate.Options) -> FetchPredicate {
        .compare(self, .equalTo, other, options: options)
    }

    /// `self BEGINSWITH[options] prefix`.
    public func beginsWith(_ prefix: Self, options: FetchPredicate.Options = []) -> FetchPredicate {
        .compare(self, .beginsWith, prefix, options: options)
    }

    /// `self ENDSWITH[options] suffix`.
    public func endsWith(_ suffix: Self, options: FetchPredicate.Options = []) -> FetchPredicate {
        .compare(self, .endsWith, suffix, options: options)
    }

    /// `self CONTAINS[options] part`.
    public func contains(_ part: Self, options: FetchPredicate.Options = []) -> FetchPredicate {
        .compare(self, .contains, part, options: options)
    }

    /// `self LIKE[options] pattern`, where `*` matches any run of characters and `?` one character.
    public func like(_ pattern: Self, options: FetchPredicate.Options = []) -> FetchPredicate {
        .compare(self, .like, pattern, options: options)
    }

    /// `self MATCHES[options] regularExpression`, matched against the whole string.
    public func matches(_ regularExpression: Self, options: FetchPredicate.Options = []) -> FetchPredicate {
        .compare(self, .matches, regularExpression, options: options)
    }
}

extension FetchPredicate {
    /// The key path expression `path`, reachable from a `FetchPredicate` context too, so that a method chain such as
    /// `.keyPath("name").beginsWith("Caf")` reads as a predicate where one is expected.
    public static func keyPath(_ path: String) -> Expression { .keyPath(path) }

    /// A comparison; the general form behind the operators.
    public static func compare(
        _ lhs: Expression, _ operator: Operator, _ rhs: Expression, options: Options = [],
        modifier: Modifier = .direct
    ) -> FetchPredicate {
        .comparison(Comparison(lhs, `operator`, rhs, options: options, modifier: modifier))
    }

    /// `ANY comparison`: true when at least one object of the to-many key path on the left matches.
    ///
    /// `comparison` must be a comparison (a programmer error otherwise).
    public static func any(_ comparison: FetchPredicate) -> FetchPredicate { comparison.modified(.any) }

    /// `ALL comparison`: true when every object of the to-many key path matches, or there is none.
    public static func all(_ comparison: FetchPredicate) -> FetchPredicate { comparison.modified(.all) }

    /// `NONE comparison`: true when no object of the to-many key path matches.
    public static func none(_ comparison: FetchPredicate) -> FetchPredicate { comparison.modified(.none) }

    private func modified(_ modifier: Modifier) -> FetchPredicate {
        guard case .comparison(var comparison) = self else {
            preconditionFailure("\(modifier.rawValue) applies to a comparison, not to \(self)")
        }
        comparison.modifier = modifier
        return .comparison(comparison)
    }

    /// `lhs AND rhs`.
    public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .and(lhs, rhs) }
    /// `lhs OR rhs`.
    public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .or(lhs, rhs) }
    /// `NOT predicate`.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate { .not(predicate) }

    /// Every predicate at once, left-associated (`a AND b AND c`); `TRUEPREDICATE` when there is none.
    public static func conjunction(_ predicates: [FetchPredicate]) -> FetchPredicate {
        guard let first = predicates.first else { return .truePredicate }
        return predicates.dropFirst().reduce(first, FetchPredicate.and)
    }

    /// Any of the predicates, left-associated (`a OR b OR c`); `FALSEPREDICATE` when there is none.
    public static func disjunction(_ predicates: [FetchPredicate]) -> FetchPredicate {
        guard let first = predicates.first else { return .falsePredicate }
        return predicates.dropFirst().reduce(first, FetchPredicate.or)
    }
}

extension FetchPredicate.Expression: ExpressibleByStringLiteral {
    /// A string constant (never a key path).
    public init(stringLiteral value: String) { self = .constant(.string(value)) }
}

extension FetchPredicate.Expression: ExpressibleByIntegerLiteral {
    /// An integer constant.
    public init(integerLiteral value: Int64) { self = .constant(.integer(value)) }
}

extension FetchPredicate.Expression: ExpressibleByFloatLiteral {
    /// A double constant.
    public init(floatLiteral value: Double) { self = .constant(.double(value)) }
}

extension FetchPredicate.Expression: ExpressibleByBooleanLiteral {
    /// A boolean constant.
    public init(booleanLiteral value: Bool) { self = .constant(.boolean(value)) }
}

extension FetchPredicate.Expression: ExpressibleByNilLiteral {
    /// The `nil` constant.
    public init(nilLiteral: ()) { self = .constant(nil) }
}

extension FetchPredicate.Expression: ExpressibleByArrayLiteral {
    /// An array literal, for `IN` and `BETWEEN`.
    public init(arrayLiteral elements: FetchPredicate.Expression...) { self = .aggregate(elements) }
}
