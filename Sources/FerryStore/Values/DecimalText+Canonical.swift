extension DecimalText {
    /// Where the parts of a decimal's canonical text are, as ``write(from:into:)`` writes it: `-`, the integer digits
    /// without leading zeros or a lone `0`, then the fraction digits without trailing zeros after a `.`. The one
    /// reading of that form: ordering (``compareCanonical(_:_:)``) and counting digits (``DecimalDigitsRule``).
    struct CanonicalParts {
        let isNegative: Bool
        /// Where the integer digits start: after the sign.
        let integerStart: Int
        /// The integer digits; 0 for a lone `0`.
        let integerDigits: Int
        /// Where the fraction digits start: after the point (the end of the text without one).
        let fractionStart: Int
        let fractionDigits: Int

        init(_ text: UnsafeRawBufferPointer) {
            isNegative = text.first == UInt8(ascii: "-")
            integerStart = isNegative ? 1 : 0
            var point = integerStart
            while point < text.count && text[point] != UInt8(ascii: ".") { point += 1 }
            let beforePoint = point - integerStart
            integerDigits = beforePoint == 1 && text[integerStart] == UInt8(ascii: "0") ? 0 : beforePoint
            fractionStart = min(point + 1, text.count)
            fractionDigits = text.count - fractionStart
        }
    }

    /// Orders two decimals given as canonical text (see ``CanonicalParts``): -1 when `a` is below `b`, 1 when above,
    /// 0 when equal. Compared digit by digit, without making either a `Decimal`.
    static func compareCanonical(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let (aParts, bParts) = (CanonicalParts(a), CanonicalParts(b))
        guard aParts.isNegative == bParts.isNegative else { return aParts.isNegative ? -1 : 1 }
        let magnitudes = compareMagnitudes(a, aParts, b, bParts)
        return aParts.isNegative ? -magnitudes : magnitudes
    }

    /// Orders the magnitudes of two canonical texts.
    private static func compareMagnitudes(
        _ a: UnsafeRawBufferPointer, _ aParts: CanonicalParts, _ b: UnsafeRawBufferPointer, _ bParts: CanonicalParts
    ) -> Int {
        guard aParts.integerDigits == bParts.integerDigits else {
            return aParts.integerDigits < bParts.integerDigits ? -1 : 1
        }
        for index in 0..<aParts.integerDigits {
            let (aDigit, bDigit) = (a[aParts.integerStart + index], b[bParts.integerStart + index])
            if aDigit != bDigit { return aDigit < bDigit ? -1 : 1 }
        }
        // The fractions, the shorter one taken as followed by zeros.
        for index in 0..<max(aParts.fractionDigits, bParts.fractionDigits) {
            let aDigit = index < aParts.fractionDigits ? a[aParts.fractionStart + index] : UInt8(ascii: "0")
            let bDigit = index < bParts.fractionDigits ? b[bParts.fractionStart + index] : UInt8(ascii: "0")
            if aDigit != bDigit { return aDigit < bDigit ? -1 : 1 }
        }
        return 0
    }
}
