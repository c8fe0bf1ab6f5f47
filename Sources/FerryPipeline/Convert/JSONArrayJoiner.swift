import FerryStore

/// Joins the elements of a JSON array of scalars into one string: strings unescaped, numbers and booleans as
/// written, a separator between them (`["a","b\"c",3]` with `;` gives `a;b"c;3`).
///
/// One routine both measures and writes, so the two can never disagree: called without an output it only counts.
enum JSONArrayJoiner {
    /// The number of bytes the joined text has, or `nil` when `json` is not an array of strings, numbers and
    /// booleans (a `null`, an object or a nested array keeps the JSON text instead).
    static func joinedCount(_ json: UnsafeRawBufferPointer, separator: [UInt8]) -> Int? {
        join(json, separator: separator, into: nil)
    }

    /// Writes the joined text into `output`, which has room for ``joinedCount(_:separator:)`` bytes; returns the
    /// number of bytes written.
    static func write(_ json: UnsafeRawBufferPointer, separator: [UInt8], into output: UnsafeMutableRawBufferPointer)
        -> Int
    {
        join(json, separator: separator, into: output) ?? 0
    }

    private struct Sink {
        let output: UnsafeMutableRawBufferPointer?
        var count = 0

        mutating func put(_ byte: UInt8) {
            if let output { output[count] = byte }
            count += 1
        }

        mutating func put(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes { put(byte) }
        }

        /// Writes `scalar` as UTF-8 (U+FFFD for a lone surrogate).
        mutating func put(scalar value: UInt32) {
            let scalar = (Unicode.Scalar(value) ?? "\u{FFFD}").value
            switch scalar {
            case 0..<0x80:
                put(UInt8(scalar))
            case 0x80..<0x800:
                put(UInt8(0xC0 | scalar >> 6))
                put(UInt8(0x80 | scalar & 0x3F))
            case 0x800..<0x10000:
                put(UInt8(0xE0 | scalar >> 12))
                put(UInt8(0x80 | scalar >> 6 & 0x3F))
                put(UInt8(0x80 | scalar & 0x3F))
            default:
                put(UInt8(0xF0 | scalar >> 18))
                put(UInt8(0x80 | scalar >> 12 & 0x3F))
                put(UInt8(0x80 | scalar >> 6 & 0x3F))
                put(UInt8(0x80 | scalar & 0x3F))
            }
        }
    }

    private static func join(
        _ json: UnsafeRawBufferPointer, separator: [UInt8], into output: UnsafeMutableRawBufferPointer?
    )
        -> Int?
    {
        var cursor = ByteCursor(json)
        var sink = Sink(output: output)
        skipWhitespace(&cursor)
        guard cursor.skip(UInt8(ascii: "[")) else { return nil }
        skipWhitespace(&cursor)
        if !cursor.skip(UInt8(ascii: "]")) {
            var first = true
            repeat {
                if !first { separator.withUnsafeBytes { sink.put($0) } }
                first = false
                skipWhitespace(&cursor)
                guard element(&cursor, into: &sink) else { return nil }
                skipWhitespace(&cursor)
            } while cursor.skip(UInt8(ascii: ","))
            guard cursor.skip(UInt8(ascii: "]")) else { return nil }
        }
        skipWhitespace(&cursor)
        return cursor.isAtEnd ? sink.count : nil
    }

    private static func element(_ cursor: inout ByteCursor, into sink: inout Sink) -> Bool {
        guard let byte = cursor.peek else { return false }
        switch byte {
        case UInt8(ascii: "\""):
            cursor.index += 1
            return string(&cursor, into: &sink)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = cursor.index
            while let next = cursor.peek, next.isNumberByte { cursor.index += 1 }
            sink.put(UnsafeRawBufferPointer(rebasing: cursor.bytes[start..<cursor.index]))
            return true
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            let word: StaticString = byte == UInt8(ascii: "t") ? "true" : "false"
            let end = cursor.index + word.utf8CodeUnitCount
            guard end <= cursor.bytes.count,
                UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.index..<end]).equals(word)
            else { return false }
            sink.put(UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.index..<end]))
            cursor.index = end
            return true
        default:
            return false  // null, an object, an array
        }
    }

    /// Reads a string's body after its opening quote, through its closing quote, unescaping into `sink`.
    private static func string(_ cursor: inout ByteCursor, into sink: inout Sink) -> Bool {
        while let byte = cursor.peek {
            cursor.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return true
            case UInt8(ascii: "\\"):
                guard let escaped = cursor.peek else { return false }
                cursor.index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): sink.put(escaped)
                case UInt8(ascii: "b"): sink.put(0x08)
                case UInt8(ascii: "f"): sink.put(0x0C)
                case UInt8(ascii: "n"): sink.put(0x0A)
                case UInt8(ascii: "r"): sink.put(0x0D)
                case UInt8(ascii: "t"): sink.put(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hex4(&cursor) else { return false }
                    sink.put(scalar: surrogatePair(unit, &cursor) ?? unit)
                default: return false
                }
            default:
                sink.put(byte)
            }
        }
        return false
    }

    /// When `high` is a high surrogate followed by `\u` and a low surrogate, reads that and returns the scalar.
    private static func surrogatePair(_ high: UInt32, _ cursor: inout ByteCursor) -> UInt32? {
        guard (0xD800...0xDBFF).contains(high) else { return nil }
        var lookahead = cursor
        guard lookahead.skip(UInt8(ascii: "\\")), lookahead.skip(UInt8(ascii: "u")), let low = hex4(&lookahead),
            (0xDC00...0xDFFF).contains(low)
        else { return nil }
        cursor = lookahead
        return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
    }

    private static func hex4(_ cursor: inout ByteCursor) -> UInt32? {
        guard cursor.bytes.count - cursor.index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = cursor.bytes[cursor.index].hexDigit else { return nil }
            value = value << 4 | UInt32(digit)
            cursor.index += 1
        }
        return value
    }

    private static func skipWhitespace(_ cursor: inout ByteCursor) {
        while let byte = cursor.peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { cursor.index += 1 }
    }
}

extension UInt8 {
    /// A byte that may appear in a JSON number.
    fileprivate var isNumberByte: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default: false
        }
    }
}
