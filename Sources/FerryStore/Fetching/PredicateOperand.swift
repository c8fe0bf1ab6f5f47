import FerrySQLite
internal import Foundation

/// One side of a comparison once its key path is resolved: an SQL expression of a known kind, a to-many key path
/// that needs a subquery, a constant, or an array of constants.
struct PredicateOperand {
    /// What an SQL expression holds, which decides how constants compared with it are encoded.
    enum ValueKind: Equatable {
        /// An attribute's column.
        case attribute(AttributeType)
        /// An object's primary key: `SELF`, or a to-one relationship's foreign key column.
        case object(String)
        /// A `@count` subquery.
        case count
        /// A number an aggregate computes (`@sum`, `@avg`, `@min` or `@max` of decimals).
        case number
    }

    /// A key path that goes through a to-many relationship: where it starts and what follows the relationship.
    struct ToManyPath {
        var sourceAlias: String
        var sourceEntity: String
        var relationship: RelationshipDescription
        /// The components after the relationship (empty: the related objects themselves).
        var remainder: [String]
        /// The whole key path as written, for messages.
        var keyPath: String
    }

    enum Kind {
        case column(String, ValueKind)
        case toMany(ToManyPath)
        case constant(AttributeValue?)
        case list([AttributeValue?])
    }

    var kind: Kind
    /// The key path as written (empty for constants), for messages.
    var keyPath: String
    /// The values of the `?` parameters in a column's SQL (a subquery's), in text order.
    var bindings: [SQLiteValue]

    init(_ kind: Kind, keyPath: String, bindings: [SQLiteValue] = []) {
        self.kind = kind
        self.keyPath = keyPath
        self.bindings = bindings
    }

    /// A column's SQL read for comparing (see ``ValueKind/comparable(_:options:)``), with its parameters; nil for
    /// other operands.
    func comparable(options: FetchPredicate.Options) -> PredicateSQLFragment? {
        guard case .column(let sql, let kind) = kind else { return nil }
        return PredicateSQLFragment(kind.comparable(sql, options: options), bindings: bindings)
    }

    /// A column's SQL as it is, with its parameters; nil for other operands.
    var plain: PredicateSQLFragment? {
        guard case .column(let sql, _) = kind else { return nil }
        return PredicateSQLFragment(sql, bindings: bindings)
    }

    var isToMany: Bool {
        if case .toMany = kind { return true }
        return false
    }
}

extension PredicateOperand.ValueKind {
    /// Kinds in one family compare with each other.
    enum Family: Equatable {
        case number, text, date, uuid, binary, object
    }

    var family: Family {
        switch self {
        case .count, .number, .attribute(.boolean): .number
        case .object: .object
        case .attribute(let type):
            switch type {
            case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: .number
            case .string, .uri: .text
            case .date: .date
            case .uuid: .uuid
            case .binary, .transformable: .binary
            }
        }
    }

    /// Whether `[c]` and `[d]` apply.
    var isText: Bool { family == .text }

    /// `a string attribute`, `a to-one relationship to Category`…
    var name: String {
        switch self {
        case .attribute(let type):
            "\(type.name.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(type) attribute"
        case .object(let entity): "a \(entity) object"
        case .count: "a count"
        case .number: "an aggregate number"
        }
    }

    /// `value` in the storage encoding of this kind's column (see StoreSchema's doc comment), or `nil` when
    /// the value cannot be compared with it.
    func encode(_ value: AttributeValue) -> SQLiteValue? {
        switch (family, value) {
        case (.number, .integer(let integer)):
            if case .attribute(let type) = self, !type.isInteger, type != .boolean { return .real(Double(integer)) }
            return .integer(integer)
        case (.number, .double(let double)): return .real(double)
        case (.number, .decimal(let decimal)): return .real(NSDecimalNumber(decimal: decimal).doubleValue)
        case (.number, .boolean(let flag)) where self == .attribute(.boolean) || isIntegerAttribute:
            return .integer(flag ? 1 : 0)
        case (.text, .string(let string)): return .text(string)
        case (.text, .uri(let url)): return .text(url.absoluteString)
        case (.date, .date(let date)): return .real(date.timeIntervalSince1970)
        case (.uuid, .uuid(let uuid)): return .text(uuid.uuidString.lowercased())
        case (.uuid, .string(let string)): return UUID(uuidString: string).map { .text($0.uuidString.lowercased()) }
        case (.binary, .binary(let data)): return .blob(Array(data))
        case (.object, .integer(let primaryKey)): return .integer(primaryKey)
        case (.object, .uri(let url)): return ObjectReference(url)?.key
        default: return nil
        }
    }

    private var isIntegerAttribute: Bool {
        if case .attribute(let type) = self { return type.isInteger }
        return false
    }

    /// The SQL that reads `expression` for comparing: decimals are stored as exact text but ordered as numbers
    /// (`CAST(… AS REAL)`, exact to about 15 significant digits; text comparison would put "10" before "9"; equality
    /// compares the exact text instead, see `PredicateDecimalEquality.swift`), and text is folded for `[c]`/`[d]`.
    func comparable(_ expression: String, options: FetchPredicate.Options) -> String {
        if self == .attribute(.decimal) { return "CAST(\(expression) AS REAL)" }
        guard isText, !options.isEmpty else { return expression }
        return PredicateSQLFunctions.foldCall(expression, options)
    }
}

extension PredicateSQLFunctions {
    /// `ferry_fold(expression, c, d)`; the flags are part of the predicate's shape, not values.
    static func foldCall(_ expression: String, _ options: FetchPredicate.Options) -> String {
        let caseFlag = options.contains(.caseInsensitive) ? 1 : 0
        let diacriticFlag = options.contains(.diacriticInsensitive) ? 1 : 0
        return "\(fold)(\(expression), \(caseFlag), \(diacriticFlag))"
    }
}

extension AttributeType {
    /// Whether the store can evaluate predicates on this type: transformable values are opaque to SQL.
    var isPredicateComparable: Bool {
        if case .transformable = self { return false }
        return true
    }
}

extension AttributeValue {
    /// The value as SQLite stores it when nothing says otherwise (a constant compared with a constant).
    var storageValue: SQLiteValue {
        switch self {
        case .integer(let integer): .integer(integer)
        case .double(let double): .real(double)
        case .decimal(let decimal): .real(NSDecimalNumber(decimal: decimal).doubleValue)
        case .string(let string): .text(string)
        case .boolean(let flag): .integer(flag ? 1 : 0)
        case .date(let date): .real(date.timeIntervalSince1970)
        case .binary(let data), .transformable(let data): .blob(Array(data))
        case .uuid(let uuid): .text(uuid.uuidString.lowercased())
        case .uri(let url): .text(url.absoluteString)
        }
    }
}
