/// The new value of one attribute in a ``BatchUpdateRequest``, evaluated per row by SQLite (the subset of Core
/// Data's `NSExpression` that batch updates use): a constant, another attribute of the same object, the current
/// time, or arithmetic on those.
///
/// ```swift
/// request.propertiesToUpdate = [
///     "price": .keyPath("price") * 1.1,          // or .keyPath("price") * .constant(.decimal(…))
///     "quantity": .keyPath("quantity") - 1,
///     "listPrice": .keyPath("price"),
///     "updatedAt": .now,
///     "status": .constant(.string("archived")),
///     "note": .constant(nil),
/// ]
/// ```
///
/// Types, checked before anything runs (a mismatch throws ``StoreError`` `.invalidBatchRequest`):
/// - A constant must suit the attribute, as in a batch insert (an integer also suits a double, float or decimal).
/// - Arithmetic takes numbers: integers give an integer (`/` always divides exactly, never as integers), any
///   double makes it a double, any decimal makes it an exact decimal (computed in Swift's `Decimal`, not in
///   floating point). A date plus or minus a number of seconds is a date; a date minus a date is seconds.
/// - A number stored in an integer attribute is truncated toward zero, as `NSNumber.intValue` does; a double
///   stored in a decimal attribute keeps its shortest exact text.
/// - Strings, booleans, UUIDs, URIs and binary values take a constant or an attribute of the same type.
///
/// Values are always bound as SQL parameters and attribute names quoted: nothing from an expression is spliced
/// into the SQL text as a value.
public indirect enum BatchUpdateExpression: Sendable, Hashable, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral
{
    /// An arithmetic operator.
    public enum Operator: String, Sendable, Hashable {
        case add = "+"
        case subtract = "-"
        case multiply = "*"
        case divide = "/"
    }

    /// A value (nil stores NULL).
    case constant(AttributeValue?)
    /// The current value of another stored attribute of the same object, by name.
    case keyPath(String)
    /// The time the request runs (one instant for every row), as Core Data's `now()`.
    case now
    /// `lhs op rhs`.
    case arithmetic(BatchUpdateExpression, Operator, BatchUpdateExpression)

    /// An integer constant: `.keyPath("quantity") - 1`.
    public init(integerLiteral value: Int64) {
        self = .constant(.integer(value))
    }

    /// A double constant: `.keyPath("price") * 1.1`.
    public init(floatLiteral value: Double) {
        self = .constant(.double(value))
    }

    /// `lhs + rhs`.
    public static func + (lhs: BatchUpdateExpression, rhs: BatchUpdateExpression) -> BatchUpdateExpression {
        .arithmetic(lhs, .add, rhs)
    }

    /// `lhs - rhs`.
    public static func - (lhs: BatchUpdateExpression, rhs: BatchUpdateExpression) -> BatchUpdateExpression {
        .arithmetic(lhs, .subtract, rhs)
    }

    /// `lhs * rhs`.
    public static func * (lhs: BatchUpdateExpression, rhs: BatchUpdateExpression) -> BatchUpdateExpression {
        .arithmetic(lhs, .multiply, rhs)
    }

    /// `lhs / rhs`; division by zero gives nil, as in SQL.
    public static func / (lhs: BatchUpdateExpression, rhs: BatchUpdateExpression) -> BatchUpdateExpression {
        .arithmetic(lhs, .divide, rhs)
    }
}
