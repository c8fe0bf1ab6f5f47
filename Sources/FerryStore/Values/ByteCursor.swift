/// A read position in borrowed UTF-8 bytes, for hand-written parsers (dates here, numbers and
/// patterns in the importer's converters): no `String`, no allocation.
///
/// Valid only inside the `withUnsafeBytes` closure that lent the bytes.
package struct ByteCursor {
    /// The bytes read.
    package let bytes: UnsafeRawBufferPointer
    /// The offset of the next byte.
    package var index: Int

    /// A cursor over `bytes`, at `index`.
    @inlinable
    package init(_ bytes: UnsafeRawBufferPointer, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    /// Whether every byte has been read.
    @inlinable
    package var isAtEnd: Bool { index >= bytes.count }

    /// The byte at the cursor, or `nil` at the end.
    @inlinable
    package var peek: UInt8? { isAtEnd ? nil : bytes[index] }

    /// Steps over `byte` when it is next; says whether it was.
    @inlinable
    package mutating func skip(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// Steps over the next byte when it is one of `a` or `b`, returning it.
    @inlinable
    package mutating func skip(either a: UInt8, or b: UInt8) -> UInt8? {
        guard let byte = peek, byte == a || byte == b else { return nil }
        index += 1
        return byte
    }

    /// Reads exactly `count` ASCII digits as a number, or nothing (the cursor stays) when fewer are there.
    @inlinable
    package mutating func digits(exactly count: Int) -> Int? {
        digits(minimum: count, maximum: count)
    }

    /// Reads as many ASCII digits as there are, up to `maximum`; `nil` (the cursor stays) when fewer than `minimum`.
    @inlinable
    package mutating func digits(minimum: Int, maximum: Int) -> Int? {
        precondition(maximum <= 18, "at most 18 digits fit an Int")
        var value = 0
        var end = index
        while end < bytes.count, end - index < maximum, let digit = Self.digit(bytes[end]) {
            value = value * 10 + digit
            end += 1
        }
        guard end - index >= minimum else { return nil }
        index = end
        return value
    }

    /// The value of an ASCII digit, or `nil`.
    @inlinable
    package static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte &- UInt8(ascii: "0")) : nil
    }
}
