public import Foundation

/// A non-nil attribute value; an absent value is Swift's `nil` (`AttributeValue?`).
public enum AttributeValue: Sendable, Hashable {
    /// Integers of every width.
    case integer(Int64)
    /// Doubles and floats.
    case double(Double)
    /// Exact decimals.
    case decimal(Decimal)
    case string(String)
    case boolean(Bool)
    case date(Date)
    case binary(Data)
    case uuid(UUID)
    case uri(URL)
    /// A transformable value, already encoded by its transformer.
    case transformable(Data)
}

extension AttributeValue {
    /// `an integer`, `a string`…, for messages (never the value itself: values may be row data).
    var kindName: String {
        switch self {
        case .integer: "an integer"
        case .double: "a double"
        case .decimal: "a decimal"
        case .string: "a string"
        case .boolean: "a boolean"
        case .date: "a date"
        case .binary: "binary data"
        case .uuid: "a UUID"
        case .uri: "a URI"
        case .transformable: "a transformable value"
        }
    }
}
