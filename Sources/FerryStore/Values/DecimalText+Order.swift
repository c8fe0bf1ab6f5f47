extension DecimalText {
    /// Orders two decimals given as canonical text (as ``write(from:into:)`` writes it: `-`, the integer digits
    /// without leading zeros or a lone `0`, then the fraction digits without trailing zeros after a `.`): -1 when `a`
    /// is below `b`, 1 when above, 0 when equal. Compared digit by digit, without making either a `Decimal`.
    static func compareCanonical(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let aNegative = a.first == UInt8(ascii: "-")
        let bNegative = b.first == UInt8(ascii: "-")
        guard aNegative == bNegative else { return aNegative ? -1 : 1 }
        let magnitudes = compareMagnitudes(
            UnsafeRawBufferPointer(rebasing: a[(aNegative ? 1 : 0)...]),
            UnsafeRawBufferPointer(rebasing: b[(bNegative ? 1 : 0)...]))
        return aNegative ? -magnitudes : magnitudes
    }

    /// Orders two canonical texts without a sign.
    private static func compareMagnitudes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let aPoint = a.firstIndex(of: UInt8(ascii: ".")) ?? a.count
        let bPoint = b.firstIndex(of: UInt8(ascii: ".")) ?? b.count
        // A lone `0` before the point is no integer digit.
        let aIntegerDigits = aPoint == 1 && a[0] == UInt8(ascii: "0") ? 0 : aPoint
        let bIntegerDigits = bPoint == 1 && b[0] == UInt8(ascii: "0") ? 0 : bPoint
        guard aIntegerDigits == bIntegerDigits else { return aIntegerDigits < bIntegerDigits ? -1 : 1 }
        for index in 0..<aIntegerDigits where a[index] != b[index] { return a[index] < b[index] ? -1 : 1 }
        // The fractions, the shorter one taken as followed by zeros.
        let aFraction = a.count - min(a.count, aPoint + 1)
        let bFraction = b.count - min(b.count, bPoint + 1)
        for index in 0..<max(aFraction, bFraction) {
            let aDigit = index < aFraction ? a[aPoint + 1 + index] : UInt8(ascii: "0")
            let bDigit = index < bFraction ? b[bPoint + 1 + index] : UInt8(ascii: "0")
            if aDigit != bDigit { return aDigit < bDigit ? -1 : 1 }
        }
        return 0
    }
}
