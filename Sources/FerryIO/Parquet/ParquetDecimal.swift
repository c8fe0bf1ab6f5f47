/// Reads decimal text (`-12.50`, `0.001`, `1.5e3`) as the unscaled integer of a DECIMAL(precision, scale) column.
///
/// The value must fit exactly: more significant digits than `precision`, or digits after the point that `scale`
/// would drop (other than zeros), make it refuse rather than round, so no digit is ever lost silently.
enum ParquetDecimal {
    /// Why text is not a decimal of the column's precision and scale.
    enum Failure: Error {
        case notANumber, tooManyDigits, tooManyFractionDigits
    }

    /// The unscaled value of `text` at `scale`, checked against `precision` (at most 38).
    static func unscaled(_ text: UnsafeRawBufferPointer, precision: Int, scale: Int) throws(Failure) -> Int128 {
        var index = 0
        let count = text.count
        var negative = false
        if index < count && (text[index] == 0x2D || text[index] == 0x2B) {
            negative = text[index] == 0x2D
            index += 1
        }
        // Digits, with the position of the point among them.
        var digits: Int128 = 0
        var significant = 0
        var fractionDigits = 0
        var sawDigit = false
        var sawPoint = false
        var droppedNonZero = false
        var exponent = 0
        while index < count {
            let byte = text[index]
            if byte >= 0x30 && byte <= 0x39 {
                sawDigit = true
                if sawPoint { fractionDigits += 1 }
                if significant > 0 || byte != 0x30 {
                    significant += 1
                    guard significant <= ParquetValueType.maxDecimalPrecision else { throw .tooManyDigits }
                }
                digits = digits * 10 + Int128(byte - 0x30)
            } else if byte == 0x2E && !sawPoint {
                sawPoint = true
            } else if (byte == 0x65 || byte == 0x45) && sawDigit {
                index += 1
                exponent = try readExponent(text, from: index)
                break
            } else {
                throw .notANumber
            }
            index += 1
        }
        guard sawDigit else { throw .notANumber }
        // value = digits × 10^(exponent − fractionDigits); bring it to `scale`.
        var shift = scale + exponent - fractionDigits
        while shift < 0 {
            if digits % 10 != 0 { droppedNonZero = true }
            digits /= 10
            shift += 1
        }
        guard !droppedNonZero else { throw .tooManyFractionDigits }
        let limit = powersOfTen[precision]
        while shift > 0 {
            guard digits < limit / 10 else { throw .tooManyDigits }
            digits *= 10
            shift -= 1
        }
        guard digits < limit else { throw .tooManyDigits }
        return negative ? -digits : digits
    }

    /// 10^0 through 10^38.
    private static let powersOfTen: [Int128] = (0...ParquetValueType.maxDecimalPrecision).map { power in
        (0..<power).reduce(Int128(1)) { value, _ in value * 10 }
    }

    private static func readExponent(_ text: UnsafeRawBufferPointer, from start: Int) throws(Failure) -> Int {
        var index = start
        var negative = false
        if index < text.count && (text[index] == 0x2D || text[index] == 0x2B) {
            negative = text[index] == 0x2D
            index += 1
        }
        guard index < text.count else { throw .notANumber }
        var value = 0
        while index < text.count {
            let byte = text[index]
            guard byte >= 0x30 && byte <= 0x39, value < 1000 else { throw .notANumber }
            value = value * 10 + Int(byte - 0x30)
            index += 1
        }
        return negative ? -value : value
    }
}
