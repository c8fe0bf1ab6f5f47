#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A binary floating-point number read from borrowed bytes: the one reader of number text for double, float and
/// epoch-date values, so that an import's fields and a migration's text → double conversion take the same texts and
/// store the same bits.
///
/// Accepted: `[+-]digits[.digits][e[+-]digits]` (`.5`, `5.`, `+1.5`, `1e-1`, `-2.5E+3` too), read as `strtod` reads
/// it (correctly rounded). No `nan`, `inf`, hexadecimal or whitespace; a finite text too large for a double is out of
/// range.
package enum DoubleText {
    /// Why a text is not a double.
    package enum Problem: Error, Sendable {
        /// Not a number: `12x`, `1.2.3`, `e5`, `nan`.
        case syntax
        /// A number beyond the largest finite double (`1e400`).
        case range
    }

    /// Whether a float attribute can hold `value`: it rounds to a finite `Float`. The largest float's shortest text,
    /// `3.4028235e38` (what an export writes for it), is a little above the float itself but rounds to it, so it is in.
    @inlinable
    package static func fitsFloat(_ value: Double) -> Bool {
        Float(value).isFinite
    }

    /// The double `text` spells, all of it.
    package static func parse(_ text: UnsafeRawBufferPointer) -> Result<Double, Problem> {
        guard isDecimalNumber(text) else { return .failure(.syntax) }
        if let exact = exactDouble(text) { return .success(exact) }
        let parsed: Double? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) { buffer in
            guard let start = buffer.baseAddress else { return nil }
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: text)
            buffer[text.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(start, &end)
            // A C locale whose decimal point is not "." stops strtod early: refuse rather than misread.
            guard end == start + text.count else { return nil }
            return value
        }
        guard let parsed else { return .failure(.syntax) }
        return parsed.isFinite ? .success(parsed) : .failure(.range)
    }

    /// The value of a number ``isDecimalNumber(_:)`` accepted, without `strtod`, when the result is exact by
    /// construction: at most 19 digits making an integer `m` ≤ 2^53, scaled by 10^k with |k| ≤ 22. Both are exact
    /// doubles, so the one multiplication or division rounds once, correctly, as `strtod` does (Clinger's fast
    /// path). `nil` for anything else, which `strtod` then reads.
    static func exactDouble(_ text: UnsafeRawBufferPointer) -> Double? {
        var index = 0
        var negative = false
        if text[0] == UInt8(ascii: "-") || text[0] == UInt8(ascii: "+") {
            negative = text[0] == UInt8(ascii: "-")
            index = 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var afterPoint = false
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                afterPoint = true
            } else if let digit = ByteCursor.digit(byte) {
                digits += 1
                guard digits <= 19 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                if afterPoint { scale -= 1 }
            } else {
                break
            }
            index += 1
        }
        if index < text.count {
            // An exponent: `e`, an optional sign, digits (checked by isDecimalNumber).
            index += 1
            var exponentIsNegative = false
            if text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentIsNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            var exponent = 0
            while index < text.count {
                exponent = exponent * 10 + Int(text[index] &- UInt8(ascii: "0"))
                guard exponent <= 1000 else { return nil }
                index += 1
            }
            scale += exponentIsNegative ? -exponent : exponent
        }
        guard mantissa <= 1 << 53, scale >= -22, scale <= 22 else { return nil }
        var value = Double(mantissa)
        if scale < 0 {
            value /= exactPowersOfTen[-scale]
        } else if scale > 0 {
            value *= exactPowersOfTen[scale]
        }
        return negative ? -value : value
    }

    /// Whether `text` is `[+-]` then digits with at most one `.` (at least one digit), then optionally `e` or `E`,
    /// `[+-]` and at least one digit.
    static func isDecimalNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
        var digits = 0
        var sawPoint = false
        while index < text.count {
            let byte = text[index]
            if ByteCursor.digit(byte) != nil {
                digits += 1
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            index += 1
        }
        guard digits > 0 else { return false }
        if index == text.count { return true }
        guard text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") else { return false }
        index += 1
        if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
        guard index < text.count else { return false }
        while index < text.count {
            guard ByteCursor.digit(text[index]) != nil else { return false }
            index += 1
        }
        return true
    }
}

/// 10^0 … 10^22: every power of ten a double holds exactly.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22,
]
