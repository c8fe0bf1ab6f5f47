import FerryStore

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
        if case .float = storage, case .success(let value) = result, !DoubleText.fitsFloat(value) {
            return .failure(.outOfRange)
        }
        return result
    }

    /// Reads `[+-]digits[.digits][e[+-]digits]` (`.5` and `5.` too) as ``DoubleText`` does (the store's reader, which
    /// a migration's text → double conversion shares). No `nan`, `inf`, hexadecimal or whitespace; a finite number
    /// too large for a double is out of range.
    static func parseDouble(_ text: UnsafeRawBufferPointer) -> Result<Double, Rejection> {
        switch DoubleText.parse(text) {
        case .success(let value): .success(value)
        case .failure(.syntax): .failure(.invalid)
        case .failure(.range): .failure(.outOfRange)
        }
    }
}
