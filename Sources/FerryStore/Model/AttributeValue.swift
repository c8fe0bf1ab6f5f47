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
