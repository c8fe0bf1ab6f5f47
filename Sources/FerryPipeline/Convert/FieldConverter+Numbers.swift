#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Integers and binary floating-point numbers from borrowed bytes.
extension FieldConverter {
    /// Reads `[+-]digits` (nothing else) as an integer within `range`.
    static func parseInteger(_ text: UnsafeRawBufferPointer, in range: ClosedRange<Int64>) -> Result<Int64, Rejection> {
        var index = 0
        var negative = false
        if !text.isEmpty, text[0] == UInt8(ascii: "-") || text[0] == UInt8(ascii: "+") {
            negative = text[0] == UInt8(ascii: "-")
            index = 1
        }
        guard index < text.count else { return .failure(.invalid) }
        // The magnitude in UInt64 so that Int64.min's is representable; past it the digits are only checked.
        var magnitude: UInt64 = 0
        var overflowed = false
        while index < text.count {
            guard let digit = text[index].asciiDigit else { return .failure(.invalid) }
            if !overflowed {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
                overflowed = overflow1 || overflow2
                magnitude = sum
            }
            index += 1
        }
        let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        guard !overflowed, magnitude <= limit else { return .failure(.outOfRange) }
        let value = negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
        guard range.contains(value) else { return .failure(.outOfRange) }
        return .success(value)
    }

    /// Reads a double or float attribute's value: ``parseDouble(_:)``, then the float range for floats.
    func parseReal(_ text: UnsafeRawBufferPointer) -> Result<Double, Rejection> {
        let result = Self.parseDouble(text)
        if case .float = storage, case .success(let value) = result, abs(value) > Double(Float.greatestFiniteMagnitude)
        {
            return .failure(.outOfRange)
        }
        return result
    }

    /// Reads `[+-]digits[.digits][e[+-]digits]` (`.5` and `5.` too) with `strtod` on a NUL-terminated copy on the
    /// stack. No `nan`, `inf`, hexadecimal or whitespace; a finite number too large for a double is out of range.
    static func parseDouble(_ text: UnsafeRawBufferPointer) -> Result<Double, Rejection> {
        guard isDecimalNumber(text) else { return .failure(.invalid) }
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
        guard let parsed else { return .failure(.invalid) }
        return parsed.isFinite ? .success(parsed) : .failure(.outOfRange)
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
            } else if let digit = byte.asciiDigit {
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
            if byte.isASCIIDigit {
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
            guard text[index].isASCIIDigit else { return false }
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
