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
