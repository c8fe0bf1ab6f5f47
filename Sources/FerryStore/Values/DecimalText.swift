/// A decimal number read from borrowed bytes and written back in the exact text the store keeps for decimals:
/// what `NSDecimalString(&decimal, Locale(identifier: "en_US_POSIX"))` prints for the same value.
///
/// That canonical text has no exponent, no `+`, no leading zeros before the first digit of the integer part (one
/// `0` when it is empty), no trailing zeros after the point, no point when nothing follows it, and `0` for
/// every zero (`-0.0` included): `24.90` → `24.9`, `007` → `7`, `1e3` → `1000`, `1.5e-3` → `0.0015`.
///
/// A value is accepted when `Decimal` holds it exactly: at most 38 significant digits, and an exponent of its
/// last significant digit within -128...127 (`1e127` is fine, `1e128` is not).
package struct DecimalText: Sendable {
    package enum Problem: Error {
        /// Not a number: `12x`, `1.2.3`, `e5`, `nan`.
        case syntax
        /// A number `Decimal` cannot hold exactly.
        case range
    }

    static let maximumSignificantDigits = 38
    static let exponentRange = -128...127

    /// Whether the value is below zero (never for zero).
    private(set) var isNegative = false
    /// Byte offsets of the first and one past the last significant digit in the source (they may enclose the `.`).
    private(set) var digitsStart = 0
    private(set) var digitsEnd = 0
    /// The number of significant digits, 0 for zero.
    package private(set) var significantCount = 0
    /// The value is (significant digits as an integer) × 10^exponent.
    private(set) var exponent = 0

    /// Reads `[+-]digits[.digits][e[+-]digits]` (`.5` and `5.` too) from all of `bytes`.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<DecimalText, Problem> {
        var number = DecimalText()
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            number.isNegative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var digitCount = 0  // all mantissa digits
        var fractionCount = 0
        var lastSignificantPosition = -1  // in mantissa digits, from 0
        var firstSignificantPosition = -1
        var sawPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard !sawPoint else { return .failure(.syntax) }
                sawPoint = true
            } else if byte.decimalDigitValue != nil {
                if byte != UInt8(ascii: "0") {
                    if firstSignificantPosition < 0 {
                        firstSignificantPosition = digitCount
                        number.digitsStart = index
                    }
                    lastSignificantPosition = digitCount
                    number.digitsEnd = index + 1
                }
                digitCount += 1
                if sawPoint { fractionCount += 1 }
            } else {
                break
            }
            index += 1
        }
        guard digitCount > 0 else { return .failure(.syntax) }
        var written = 0
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else {
                return .failure(.syntax)
            }
            guard let value = readExponent(bytes, from: index + 1) else { return .failure(.syntax) }
            written = value
        }
        guard firstSignificantPosition >= 0 else {
            number.isNegative = false
            return .success(number)  // zero, whatever its exponent
        }
        number.significantCount = lastSignificantPosition - firstSignificantPosition + 1
        let trailingZeros = digitCount - 1 - lastSignificantPosition
        number.exponent = written - fractionCount + trailingZeros
        guard number.significantCount <= maximumSignificantDigits, exponentRange.contains(number.exponent) else {
            return .failure(.range)
        }
        return .success(number)
    }

    /// Reads `[+-]digits` to the end of `bytes`, capped far beyond any exponent a decimal can have.
    private static func readExponent(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.count else { return nil }
        var value = 0
        while index < bytes.count {
            guard let digit = bytes[index].decimalDigitValue else { return nil }
            value = min(value * 10 + digit, 1_000_000)
            index += 1
        }
        return negative ? -value : value
    }

    /// The value as an `Int64`, reading the digits from `source` (the bytes this was parsed from), when it is a whole
    /// number (`12.0`, `1e3`, `10e-1`) within `Int64`'s range; `nil` otherwise (`12.5`, `1e-1`, `1e19`).
    package func integer(from source: UnsafeRawBufferPointer) -> Int64? {
        guard significantCount > 0 else { return 0 }
        guard exponent >= 0 else { return nil }  // trailing zeros are in the exponent: a fraction remains
        // Accumulated below zero, so that Int64.min fits.
        var value: Int64 = 0
        func append(_ digit: Int64) -> Bool {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, carry) = shifted.subtractingReportingOverflow(digit)
            value = next
            return !overflow && !carry
        }
        for index in digitsStart..<digitsEnd where source[index] != UInt8(ascii: ".") {
            guard append(Int64(source[index] &- UInt8(ascii: "0"))) else { return nil }
        }
        for _ in 0..<exponent {
            guard append(0) else { return nil }
        }
        if isNegative { return value }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    /// The number of bytes ``write(from:into:)`` writes.
    package var textCount: Int {
        guard significantCount > 0 else { return 1 }
        let sign = isNegative ? 1 : 0
        if exponent >= 0 { return sign + significantCount + exponent }
        if -exponent < significantCount { return sign + significantCount + 1 }
        return sign + 2 + (-exponent - significantCount) + significantCount
    }

    /// Writes the canonical text into `buffer` (room for at least ``textCount`` bytes), reading the digits from
    /// `source`, the bytes this was parsed from. Returns the number of bytes written.
    package func write(from source: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard significantCount > 0 else {
            buffer[0] = UInt8(ascii: "0")
            return 1
        }
        var out = 0
        if isNegative {
            buffer[out] = UInt8(ascii: "-")
            out += 1
        }
        // Digits before the point: all of them when the exponent is not negative.
        let integerDigits = exponent >= 0 ? significantCount : max(0, significantCount + exponent)
        if integerDigits == 0 {
            buffer[out] = UInt8(ascii: "0")
            buffer[out + 1] = UInt8(ascii: ".")
            out += 2
            for _ in 0..<(-exponent - significantCount) {
                buffer[out] = UInt8(ascii: "0")
                out += 1
            }
        }
        var emitted = 0
        for index in digitsStart..<digitsEnd where source[index] != UInt8(ascii: ".") {
            if emitted == integerDigits && integerDigits > 0 {
                buffer[out] = UInt8(ascii: ".")
                out += 1
            }
            buffer[out] = source[index]
            out += 1
            emitted += 1
        }
        for _ in 0..<max(0, exponent) {
            buffer[out] = UInt8(ascii: "0")
            out += 1
        }
        return out
    }
}

extension UInt8 {
    /// The value of an ASCII digit, or `nil`.
    @inline(__always)
    fileprivate var decimalDigitValue: Int? {
        self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") ? Int(self &- UInt8(ascii: "0")) : nil
    }
}
