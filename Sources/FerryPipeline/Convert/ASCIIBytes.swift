/// ASCII tests on single bytes and borrowed byte ranges, for the converters' hand-written parsers (trimming is
/// FerryStore's `trimmingASCIIWhitespace()`, shared with migrations).
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

}

extension UnsafeRawBufferPointer {
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
