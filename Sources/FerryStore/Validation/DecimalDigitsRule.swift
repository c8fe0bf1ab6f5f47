import Foundation

/// A decimal attribute's declared `precision` and `scale`, checked as SQL's DECIMAL(precision, scale) holds values: at
/// most `scale` digits after the point (trailing zeros aside) and `precision − scale` before it. Nothing is rounded:
/// a value with more digits is refused, 1610 or 1620 for too many before the point (by its sign), 1550 for too many
/// after it.
///
/// An import checks every value, so neither check makes text of a value: a `Decimal` is compared with the limit
/// exactly only when its `Double` is near it, and a stored decimal's text is checked by counting its digits.
struct DecimalDigitsRule: Sendable {
    let precision: Int
    let scale: Int
    /// 10^(precision − scale), which values stay below in magnitude.
    private let integerLimit: Decimal
    /// ``integerLimit`` as a `Double`, to rule most values in without an exact comparison.
    private let approximateIntegerLimit: Double

    init(precision: Int, scale: Int) {
        self.precision = precision
        self.scale = scale
        integerLimit = Decimal(sign: .plus, exponent: precision - scale, significand: 1)
        approximateIntegerLimit = NSDecimalNumber(decimal: integerLimit).doubleValue
    }

    /// The rule `decimal` breaks, if any; `double` is the value as a `Double`.
    func check(_ decimal: Decimal, approximately double: Double) -> ValidationError? {
        if abs(double) >= approximateIntegerLimit / 2 && decimal.magnitude >= integerLimit {
            return tooManyIntegerDigits(isNegative: decimal < 0)
        }
        // Only a value stored with more than `scale` fraction digits can have too many, unless they are zeros.
        if decimal.exponent < -scale && !Self.hasNoDigits(decimal, after: scale) { return tooManyFractionDigits() }
        return nil
    }

    /// The rule a decimal breaks, if any, given its stored text (``DecimalText/CanonicalParts``).
    func check(storedText text: UnsafeRawBufferPointer) -> ValidationError? {
        let parts = DecimalText.CanonicalParts(text)
        if parts.integerDigits > precision - scale { return tooManyIntegerDigits(isNegative: parts.isNegative) }
        if parts.fractionDigits > scale { return tooManyFractionDigits() }
        return nil
    }

    private var shape: String { "precision \(precision), scale \(scale)" }

    private func tooManyIntegerDigits(isNegative: Bool) -> ValidationError {
        let allowed = precision - scale
        return ValidationError(
            isNegative ? .numberTooSmall : .numberTooLarge,
            message: allowed == 0
                ? "must have no digits before the point (\(shape))"
                : "must have at most \(Self.digits(allowed)) before the point (\(shape))",
            rule: shape)
    }

    private func tooManyFractionDigits() -> ValidationError {
        ValidationError(
            .managedObjectValidation,
            message: scale == 0
                ? "must be a whole number (\(shape)); it is not rounded"
                : "must have at most \(Self.digits(scale)) after the point (\(shape)); it is not rounded",
            rule: shape)
    }

    /// Whether `decimal` rounded to `scale` digits after the point is itself.
    private static func hasNoDigits(_ decimal: Decimal, after scale: Int) -> Bool {
        var value = decimal
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, scale, .plain)
        return rounded == decimal
    }

    /// "1 digit", "2 digits".
    private static func digits(_ count: Int) -> String {
        count == 1 ? "1 digit" : "\(count) digits"
    }
}
