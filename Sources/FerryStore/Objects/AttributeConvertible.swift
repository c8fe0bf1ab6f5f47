public import Foundation

/// A Swift type that attribute values convert to and from, for typed access: `let name: String? = object["name"]`.
public protocol AttributeConvertible {
    /// The value as an attribute value.
    var attributeValue: AttributeValue { get }
    /// The Swift value of `attributeValue`, or `nil` when it holds another kind of value.
    init?(attributeValue: AttributeValue)
}

extension String: AttributeConvertible {
    public var attributeValue: AttributeValue { .string(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .string(let value) = attributeValue else { return nil }
        self = value
    }
}

extension Int64: AttributeConvertible {
    public var attributeValue: AttributeValue { .integer(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let value) = attributeValue else { return nil }
        self = value
    }
}

extension Int16: AttributeConvertible {
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    /// The integer, or `nil` when it does not fit 16 bits.
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let value) = attributeValue, let exact = Int16(exactly: value) else { return nil }
        self = exact
    }
}

extension Int32: AttributeConvertible {
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    /// The integer, or `nil` when it does not fit 32 bits.
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let value) = attributeValue, let exact = Int32(exactly: value) else { return nil }
        self = exact
    }
}

extension Int: AttributeConvertible {
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let value) = attributeValue, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Double: AttributeConvertible {
    public var attributeValue: AttributeValue { .double(self) }
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .double(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Float: AttributeConvertible {
    /// Floats are stored as doubles, as float attributes are.
    public var attributeValue: AttributeValue { .double(Double(self)) }
    /// The double rounded to the nearest float (a float attribute's values were floats, so they come back exact).
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .double(let value): self = Float(value)
        case .integer(let value): self = Float(value)
        default: return nil
        }
    }
}

extension Bool: AttributeConvertible {
    public var attributeValue: AttributeValue { .boolean(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .boolean(let value) = attributeValue else { return nil }
        self = value
    }
}

extension Decimal: AttributeConvertible {
    public var attributeValue: AttributeValue { .decimal(self) }
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .decimal(let value): self = value
        case .integer(let value): self = Decimal(value)
        default: return nil
        }
    }
}

extension Date: AttributeConvertible {
    public var attributeValue: AttributeValue { .date(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .date(let value) = attributeValue else { return nil }
        self = value
    }
}

extension Data: AttributeConvertible {
    public var attributeValue: AttributeValue { .binary(self) }
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .binary(let value), .transformable(let value): self = value
        default: return nil
        }
    }
}

extension UUID: AttributeConvertible {
    public var attributeValue: AttributeValue { .uuid(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .uuid(let value) = attributeValue else { return nil }
        self = value
    }
}

extension URL: AttributeConvertible {
    public var attributeValue: AttributeValue { .uri(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .uri(let value) = attributeValue else { return nil }
        self = value
    }
}
