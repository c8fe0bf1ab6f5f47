/// A read position in borrowed UTF-8 bytes, for the converters' hand-written parsers: no `String`, no allocation.
///
/// Valid only inside the `withUnsafeBytes` closure that lent the bytes.
struct ByteCursor {
    let bytes: UnsafeRawBufferPointer
    var index: Int

    init(_ bytes: UnsafeRawBufferPointer, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    var isAtEnd: Bool { index >= bytes.count }

    /// The byte at the cursor, or `nil` at the end.
    var peek: UInt8? { isAtEnd ? nil : bytes[index] }

    /// Steps over `byte` when it is next; says whether it was.
    mutating func skip(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// Steps over the next byte when it is one of `a` or `b`, returning it.
    mutating func skip(either a: UInt8, or b: UInt8) -> UInt8? {
        guard let byte = peek, byte == a || byte == b else { return nil }
        index += 1
        return byte
    }

    /// Reads exactly `count` ASCII digits as a number, or nothing (the cursor stays) when fewer are there.
    mutating func digits(exactly count: Int) -> Int? {
        digits(minimum: count, maximum: count)
    }

    /// Reads as many ASCII digits as there are, up to `maximum`; `nil` (the cursor stays) when fewer than `minimum`.
    mutating func digits(minimum: Int, maximum: Int) -> Int? {
        precondition(maximum <= 18, "at most 18 digits fit an Int")
        var value = 0
        var end = index
        while end < bytes.count, end - index < maximum, let digit = bytes[end].asciiDigit {
            value = value * 10 + digit
            end += 1
        }
        guard end - index >= minimum else { return nil }
        index = end
        return value
    }
}

extension UInt8 {
    /// The value of an ASCII digit, or `nil`.
    @inline(__always)
    var asciiDigit: Int? {
        self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") ? Int(self &- UInt8(ascii: "0")) : nil
    }

    /// Whether this is an ASCII digit.
    @inline(__always)
    var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }

    /// The value of an ASCII hexadecimal digit (either case), or `nil`.
    @inline(__always)
    var hexDigit: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }

    /// The byte with ASCII upper-case letters made lower-case.
    @inline(__always)
    var asciiLowercased: UInt8 {
        self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") ? self | 0x20 : self
    }

    /// Space, tab, line feed, carriage return, vertical tab or form feed: what trimming removes.
    @inline(__always)
    var isASCIIWhitespace: Bool {
        self == 0x20 || (self >= 0x09 && self <= 0x0D)
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes without ASCII whitespace at either end (see ``UInt8/isASCIIWhitespace``).
    func trimmingASCIIWhitespace() -> UnsafeRawBufferPointer {
        var start = 0
        var end = count
        while start < end, self[start].isASCIIWhitespace { start += 1 }
        while end > start, self[end - 1].isASCIIWhitespace { end -= 1 }
        if start == 0 && end == count { return self }
        return UnsafeRawBufferPointer(rebasing: self[start..<end])
    }

    /// Whether the bytes equal `lowercased` (ASCII lower-case already), ignoring ASCII case in the bytes.
    func equalsIgnoringASCIICase(_ lowercased: [UInt8]) -> Bool {
        guard count == lowercased.count else { return false }
        for index in 0..<count where self[index].asciiLowercased != lowercased[index] { return false }
        return true
    }

    /// Whether the bytes are exactly `text`'s UTF-8.
    func equals(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        for index in 0..<count where self[index] != text.utf8Start[index] { return false }
        return true
    }
}
