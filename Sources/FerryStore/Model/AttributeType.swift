/// The type of an attribute's values, as in Core Data's `NSAttributeDescription.AttributeType`.
public enum AttributeType: Sendable, Hashable, CustomStringConvertible {
    case integer16
    case integer32
    case integer64
    case double
    case float
    /// An exact decimal number (stored as text, so no digit is lost).
    case decimal
    case string
    case boolean
    /// A point in time, stored as seconds since 1970 (REAL).
    case date
    case binary
    case uuid
    case uri
    /// A `Codable` value stored through a named transformer (see ``AttributeTransformers``).
    case transformable(transformer: String)

    /// The names used in model files, such as `integer64` or `transformable`.
    public var name: String {
        switch self {
        case .integer16: "integer16"
        case .integer32: "integer32"
        case .integer64: "integer64"
        case .double: "double"
        case .float: "float"
        case .decimal: "decimal"
        case .string: "string"
        case .boolean: "boolean"
        case .date: "date"
        case .binary: "binary"
        case .uuid: "uuid"
        case .uri: "uri"
        case .transformable: "transformable"
        }
    }

    public var description: String { name }

    /// Whether values are numbers that min/max value rules apply to.
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .double, .float, .decimal: true
        default: false
        }
    }

    /// Whether values are integers.
    public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64: true
        default: false
        }
    }

    /// The SQLite column type that stores values of this type.
    public var sqlType: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float, .date: "REAL"
        case .decimal, .string, .uuid, .uri: "TEXT"
        case .binary, .transformable: "BLOB"
        }
    }

    /// The inclusive range an integer type can hold.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }
}
