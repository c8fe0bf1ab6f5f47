public import Foundation

/// A value handed to a predicate: an argument of ``FetchPredicate/init(format:_:)`` (`%@`, `%K`, `%d`, `%f`…) or a
/// substitution for a `$VARIABLE`.
///
/// Literals work directly, so callers rarely name the type:
///
/// ```swift
/// try FetchPredicate(format: "%K == %@ AND price < %f AND sku IN %@", "name", "Coffee", 12.5, ["A-1", "A-2"])
/// predicate.substituting(["MIN_PRICE": .double(10), "SINCE": .date(startOfDay), "NOTE": nil])
/// ```
public enum PredicateArgument: Sendable, Hashable {
    /// `nil`.
    case null
    /// A non-nil value.
    case value(AttributeValue)
    /// An array, for `IN` and `BETWEEN`.
    case array([PredicateArgument])

    /// Wraps an optional attribute value: `nil` becomes ``null``.
    public init(_ value: AttributeValue?) {
        self = value.map(PredicateArgument.value) ?? .null
    }

    /// An integer.
    public static func integer<Integer: BinaryInteger>(_ value: Integer) -> PredicateArgument {
        .value(.integer(Int64(value)))
    }

    /// A double.
    public static func double(_ value: Double) -> PredicateArgument { .value(.double(value)) }
    /// An exact decimal.
    public static func decimal(_ value: Decimal) -> PredicateArgument { .value(.decimal(value)) }
    /// A string (a value, never a key path: key paths go through `%K`).
    public static func string(_ value: String) -> PredicateArgument { .value(.string(value)) }
    /// A boolean.
    public static func boolean(_ value: Bool) -> PredicateArgument { .value(.boolean(value)) }
    /// A date.
    public static func date(_ value: Date) -> PredicateArgument { .value(.date(value)) }
    /// Bytes.
    public static func binary(_ value: Data) -> PredicateArgument { .value(.binary(value)) }
    /// A UUID.
    public static func uuid(_ value: UUID) -> PredicateArgument { .value(.uuid(value)) }
    /// A URL.
    public static func uri(_ value: URL) -> PredicateArgument { .value(.uri(value)) }

    /// An object, by its ID: `category == %@`, `%@ IN tags`, `SELF IN %@` (Core Data's managed object and object ID
    /// operands). The predicate holds the ID's URI, which compared with a relationship or `SELF` names the object;
    /// an object not saved yet matches only itself among the unsaved objects a fetch includes.
    public static func object(_ id: ObjectID) -> PredicateArgument {
        .value(FetchPredicate.Expression.objectValue(id))
    }

    /// An object: its ``ManagedObject/objectID``, as ``object(_:)-(ObjectID)``. Call it on the object's context's queue.
    public static func object(_ object: ManagedObject) -> PredicateArgument {
        .object(object.objectID)
    }

    /// The argument as a predicate expression: a constant, or an array literal of constants.
    var expression: FetchPredicate.Expression {
        switch self {
        case .null: .constant(nil)
        case .value(let value): .constant(value)
        case .array(let elements): .aggregate(elements.map(\.expression))
        }
    }
}

extension PredicateArgument: ExpressibleByNilLiteral {
    /// `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension PredicateArgument: ExpressibleByStringLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self = .value(.string(value)) }
}

extension PredicateArgument: ExpressibleByIntegerLiteral {
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .value(.integer(value)) }
}

extension PredicateArgument: ExpressibleByFloatLiteral {
    /// A double value.
    public init(floatLiteral value: Double) { self = .value(.double(value)) }
}

extension PredicateArgument: ExpressibleByBooleanLiteral {
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .value(.boolean(value)) }
}

extension PredicateArgument: ExpressibleByArrayLiteral {
    /// An array, for `IN` and `BETWEEN`.
    public init(arrayLiteral elements: PredicateArgument...) { self = .array(elements) }
}
