/// Where a string's content lies in the window, between its quotes, once validated.
struct JSONStringExtent {
    /// The first byte after the opening quote.
    let start: UnsafePointer<UInt8>
    /// Bytes up to the closing quote, escapes as written.
    let count: Int
    /// Whether the content holds a backslash, so that ``JSONScanner/unescape(_:to:)`` must run.
    let hasEscapes: Bool
}

extension JSONScanner {
    /// Scans and validates the string whose opening quote is at the cursor; leaves the cursor after its closing
    /// quote.
    ///
    /// One pass checks everything a string can get wrong: UTF-8, raw control characters, escapes, and that every
    /// `\u` surrogate comes in a high-low pair. Plain runs go eight bytes at a time. Nothing is copied: callers
    /// copy the raw bytes or ``unescape(_:to:)`` them.
    /// - Throws: a stop with `.invalidUTF8`, `.nulByte` or `.invalidJSON` (control character, bad escape, lone
    ///   surrogate); ``JSONScanStop/needMore`` when the window ends inside the string.
    mutating func scanString() throws(JSONScanStop) -> JSONStringExtent {
        let start = cursor + 1
        var pointer = start
        var hasEscapes = false
        while true {
            while end - pointer >= 8 {
                let word = UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self)
                let special = JSONBytes.specialStringBytes(in: word)
                if special != 0 {
                    pointer += special.trailingZeroBitCount >> 3
                    break
                }
                pointer += 8
            }
            guard pointer < end else { throw endOfWindow(expecting: "expected '\"' to close a string") }
            let byte = pointer.pointee
            if byte == JSONBytes.quote { break }
            if byte == JSONBytes.backslash {
                pointer = try scanEscape(at: pointer)
                hasEscapes = true
            } else if byte >= 0x80 {
                switch JSONBytes.checkSequence(at: pointer, available: end - pointer) {
                case .valid(let length): pointer += length
                case .incomplete: throw endOfWindow(expecting: "expected the rest of a UTF-8 sequence")
                case .invalid: throw failure(.invalidUTF8, "invalid UTF-8 byte sequence in a string", at: pointer)
                }
            } else if byte < 0x20 {
                throw byte == 0
                    ? failure(.nulByte, "NUL byte in a string; expected it escaped as \\u0000", at: pointer)
                    : failure(.invalidJSON, "control character in a string; expected it escaped", at: pointer)
            } else {
                pointer += 1
            }
        }
        cursor = pointer + 1
        return JSONStringExtent(start: start, count: pointer - start, hasEscapes: hasEscapes)
    }

    /// Validates the escape whose backslash is at `backslash` and returns the byte after it.
    private func scanEscape(at backslash: UnsafePointer<UInt8>) throws(JSONScanStop) -> UnsafePointer<UInt8> {
        guard end - backslash >= 2 else { throw endOfWindow(expecting: "expected an escape after '\\'") }
        switch backslash[1] {
        case JSONBytes.quote, JSONBytes.backslash, JSONBytes.slash, UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return backslash + 2
        case UInt8(ascii: "u"):
            let scalar = try hexEscape(at: backslash)
            switch scalar {
            case 0xD800..<0xDC00:
                let low = backslash + 6
                guard end - low >= 2 else { throw endOfWindow(expecting: "expected a low surrogate escape") }
                guard low[0] == JSONBytes.backslash && low[1] == UInt8(ascii: "u") else {
                    throw failure(
                        .invalidJSON, "lone high surrogate; expected a low surrogate \\uDC00-\\uDFFF after it",
                        at: backslash)
                }
                let second = try hexEscape(at: low)
                guard (0xDC00..<0xE000).contains(second) else {
                    throw failure(
                        .invalidJSON, "lone high surrogate; expected a low surrogate \\uDC00-\\uDFFF after it",
                        at: backslash)
                }
                return low + 6
            case 0xDC00..<0xE000:
                throw failure(.invalidJSON, "lone low surrogate; expected a high surrogate before it", at: backslash)
            default:
                return backslash + 6
            }
        default:
            throw failure(
                .invalidJSON, "invalid escape; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
                at: backslash)
        }
    }

    /// The value of the `\uXXXX` escape at `backslash`.
    private func hexEscape(at backslash: UnsafePointer<UInt8>) throws(JSONScanStop) -> UInt32 {
        let digits = backslash + 2
        let available = min(end - digits, 4)
        for index in 0..<available where JSONBytes.hexValue(digits[index]) == nil {
            throw failure(.invalidJSON, "invalid \\u escape; expected four hex digits", at: backslash)
        }
        guard available == 4, let scalar = JSONBytes.hexQuad(at: digits) else {
            throw endOfWindow(expecting: "expected four hex digits after \\u")
        }
        return scalar
    }

    /// Writes the unescaped UTF-8 of a string validated by ``scanString()`` to `output`, which has room for
    /// `extent.count` bytes (never exceeded: an escape is longer than what it stands for). Returns the length.
    @inline(__always)
    static func unescape(_ extent: JSONStringExtent, to output: UnsafeMutableRawPointer) -> Int {
        guard extent.hasEscapes else {
            output.copyMemory(from: extent.start, byteCount: extent.count)
            return extent.count
        }
        return unescapeSlowly(extent, to: output.bindMemory(to: UInt8.self, capacity: extent.count))
    }

    private static func unescapeSlowly(_ extent: JSONStringExtent, to output: UnsafeMutablePointer<UInt8>) -> Int {
        var source = extent.start
        let sourceEnd = extent.start + extent.count
        var target = output
        while source < sourceEnd {
            // Copy the plain run up to the next backslash in one go.
            var runEnd = source
            while runEnd < sourceEnd && runEnd.pointee != JSONBytes.backslash { runEnd += 1 }
            if runEnd > source {
                target.update(from: source, count: runEnd - source)
                target += runEnd - source
                source = runEnd
                continue
            }
            let escape = source[1]
            source += 2
            switch escape {
            case UInt8(ascii: "b"): target.pointee = 0x08
            case UInt8(ascii: "f"): target.pointee = 0x0C
            case UInt8(ascii: "n"): target.pointee = 0x0A
            case UInt8(ascii: "r"): target.pointee = 0x0D
            case UInt8(ascii: "t"): target.pointee = 0x09
            case UInt8(ascii: "u"):
                // Validated: four hex digits, and a high surrogate is followed by `\u` and a low one.
                var scalar = JSONBytes.hexQuad(at: source) ?? 0xFFFD
                source += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    let low = JSONBytes.hexQuad(at: source + 2) ?? 0xDC00
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    source += 6
                }
                target += JSONBytes.encodeUTF8(scalar, to: target)
                continue
            default: target.pointee = escape
            }
            target += 1
        }
        return target - output
    }
}
