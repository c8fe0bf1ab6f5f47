/// Byte-level facts about JSON text that the scanner and the writers share, so that each is decided in one place:
/// which bytes end a run of plain string content, how long a UTF-8 sequence is, what a hex digit is worth.
enum JSONBytes {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Marks the bytes of an 8-byte little-endian word that cannot be copied as plain string content: `"`, `\`,
    /// control characters below 0x20, and every non-ASCII byte (which needs UTF-8 validation).
    ///
    /// The result has the high bit of a byte set for each such byte. Only the lowest marked byte is exact (the
    /// subtraction borrows past a marked byte), which is all the callers use: `trailingZeroBitCount / 8` is the
    /// index of the first byte to look at.
    @inline(__always)
    static func specialStringBytes(in word: UInt64) -> UInt64 {
        let quotes = word ^ (ones &* UInt64(quote))
        let backslashes = word ^ (ones &* UInt64(backslash))
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highBits
    }

    /// What a UTF-8 sequence starting at a non-ASCII byte turned out to be.
    enum SequenceCheck {
        /// A well-formed sequence of this many bytes.
        case valid(Int)
        /// The bytes available are a correct start, but the sequence needs more than are available.
        case incomplete
        /// Not UTF-8: a bad lead byte, a bad continuation byte, an overlong form, a surrogate or a value past
        /// U+10FFFF.
        case invalid
    }

    /// Checks the UTF-8 sequence whose lead byte (at least 0x80) is at `start`, reading at most `available` bytes.
    @inline(__always)
    static func checkSequence(at start: UnsafePointer<UInt8>, available: Int) -> SequenceCheck {
        let lead = start.pointee
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: return .invalid
        }
        var index = 1
        while index < length {
            guard index < available else { return .incomplete }
            let byte = start[index]
            guard byte >= lower && byte <= upper else { return .invalid }
            lower = 0x80
            upper = 0xBF
            index += 1
        }
        return .valid(length)
    }

    /// The value of a hexadecimal digit, or `nil`.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte &- UInt8(ascii: "A") &+ 10)
        default: nil
        }
    }

    /// The value of the four hex digits at `start`, or `nil` when one is not a hex digit.
    @inline(__always)
    static func hexQuad(at start: UnsafePointer<UInt8>) -> UInt32? {
        guard let a = hexValue(start[0]), let b = hexValue(start[1]), let c = hexValue(start[2]),
            let d = hexValue(start[3])
        else { return nil }
        return a << 12 | b << 8 | c << 4 | d
    }

    /// Writes `scalar` as UTF-8 at `output` and returns the number of bytes written (1 to 4).
    @inline(__always)
    static func encodeUTF8(_ scalar: UInt32, to output: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            output[0] = UInt8(truncatingIfNeeded: scalar)
            return 1
        case 0x80..<0x800:
            output[0] = UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6)
            output[1] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            output[0] = UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12)
            output[1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
            output[2] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 3
        default:
            output[0] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
            output[1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F)
            output[2] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
            output[3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 4
        }
    }
}
