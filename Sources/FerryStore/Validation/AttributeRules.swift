import FerrySQLite
import Foundation

/// One attribute's validation rules, prepared once: the regular expression compiled, the bounds of integers and
/// decimals turned into exact decimals, a decimal's declared precision and scale.
///
/// Checks follow Core Data's. Failures come back without the object's identity (``ObjectValidator`` adds it)
/// and their messages never contain the value.
package struct AttributeRules: Sendable {
    /// The attribute checked.
    let attribute: AttributeDescription
    /// `minValue` as written in the model, for exact comparison with integers and decimals; nil when there is no
    /// minimum or it is not finite (then the `Double` is compared).
    let exactMinimum: Decimal?
    /// `maxValue` as written in the model; see ``exactMinimum``.
    let exactMaximum: Decimal?
    /// For a decimal attribute, ``exactMinimum`` and ``exactMaximum`` as a decimal's stored text, to compare with
    /// stored values (``checkStored(_:in:)``).
    let storedMinimum: [UInt8]?
    let storedMaximum: [UInt8]?
    /// A decimal's declared precision and scale.
    let digits: DecimalDigitsRule?
    /// The attribute's regular expression, anchored to match the whole string.
    let pattern: WholeStringRegex?
    /// Whether a value of the right type can still break a rule: bounds, lengths, a pattern, a decimal's precision,
    /// or an integer type narrower than 64 bits. Most attributes have none, and their values need only the type
    /// check.
    package let checksValues: Bool

    /// Prepares `attribute` of `entity`.
    ///
    /// - Throws: ``ModelError`` with code ``ModelError/Code/invalidRegularExpression`` when the attribute's regular
    ///   expression does not compile.
    package init(_ attribute: AttributeDescription, of entity: String) throws {
        self.attribute = attribute
        checksValues =
            attribute.minValue != nil || attribute.maxValue != nil || attribute.minLength != nil
            || attribute.maxLength != nil || attribute.regularExpression != nil || attribute.type == .integer16
            || attribute.type == .integer32 || (attribute.type == .decimal && attribute.decimalPrecision != nil)
        exactMinimum = attribute.minValue.flatMap(Self.exactDecimal)
        exactMaximum = attribute.maxValue.flatMap(Self.exactDecimal)
        let isDecimal = attribute.type == .decimal
        storedMinimum = isDecimal ? exactMinimum.flatMap(Self.storedText) : nil
        storedMaximum = isDecimal ? exactMaximum.flatMap(Self.storedText) : nil
        digits = attribute.decimalPrecision.map { DecimalDigitsRule(precision: $0, scale: attribute.decimalScale ?? 0) }
        guard let source = attribute.regularExpression else {
            pattern = nil
            return
        }
        let element = ModelElement.attribute(entity: entity, name: attribute.name)
        do {
            pattern = try WholeStringRegex(source)
        } catch {
            throw ModelError(.invalidRegularExpression, "regex '\(source)' does not compile", element: element)
        }
    }

    /// Every rule `value` breaks, in this order: optionality, type, a decimal's precision and scale, range or length,
    /// pattern.
    package func check(_ value: AttributeValue?) -> [ValidationError] {
        guard let value else {
            // As Core Data: a non-optional attribute that is nil fails with 1570; nil skips every other check.
            guard attribute.isOptional else {
                return [
                    ValidationError(
                        .missingMandatoryProperty, message: "a value is required (not optional)", rule: "SELF != nil")
                ]
            }
            return []
        }
        guard ModelValidator.value(value, fits: attribute.type) else {
            return [
                ValidationError(
                    .managedObjectValidation,
                    message: "expected a value of type \(attribute.type.name), found \(value.kindName)",
                    rule: "SELF isKindOf \(attribute.type.name)")
            ]
        }
        guard checksValues else { return [] }
        switch value {
        case .integer(let integer): return check(integer)
        case .double(let double): return check(double)
        case .decimal(let decimal): return check(decimal)
        case .date(let date): return check(date)
        case .string(let string): return check(string)
        case .boolean, .binary, .uuid, .uri, .transformable: return []
        }
    }

    /// The first rule broken by the value stored as `cell` of `rows` (as an import appends it: an integer, a real, a
    /// date as seconds since 1970, a decimal's or string's text), as ``check(_:)`` would find it for the value,
    /// without making an ``AttributeValue``. The value must be of the attribute's type.
    package func checkStored(_ cell: PackedRows.Cell, in rows: PackedRows) -> ValidationError? {
        switch (attribute.type, cell) {
        case (.integer16, .integer(let integer)), (.integer32, .integer(let integer)),
            (.integer64, .integer(let integer)):
            return check(integer).first
        case (.double, .real(let double)), (.float, .real(let double)):
            return check(double).first
        case (.date, .real(let seconds)):
            return check(Date(timeIntervalSince1970: seconds)).first
        case (.decimal, .text):
            return rows.withBytes(of: cell) { text in
                if let broken = digits?.check(storedText: text) { return broken }
                // A bound that is not finite has no stored text: only +∞ is above every value, −∞ below.
                let order = { (bound: [UInt8]) in bound.withUnsafeBytes { DecimalText.compareCanonical(text, $0) } }
                return checkNumber(
                    isBelow: { _, bound in storedMinimum.map { order($0) < 0 } ?? (bound == .infinity) },
                    isAbove: { _, bound in storedMaximum.map { order($0) > 0 } ?? (bound == -.infinity) }
                ).first
            }
        case (.string, .text):
            return rows.withBytes(of: cell) { text in
                if attribute.minLength != nil || attribute.maxLength != nil,
                    let broken = checkLength(Self.utf16Count(text)).first
                {
                    return broken
                }
                return pattern.flatMap { checkPattern(String(decoding: text, as: UTF8.self), $0) }
            }
        default:
            return nil
        }
    }

    /// The UTF-16 code units of valid UTF-8 `bytes`: one for each character's first byte, two for a four-byte one.
    private static func utf16Count(_ bytes: UnsafeRawBufferPointer) -> Int {
        var count = 0
        for byte in bytes where byte & 0xC0 != 0x80 { count += byte >= 0xF0 ? 2 : 1 }
        return count
    }

    /// An integer against its type's range, then against the model's bounds, exactly.
    private func check(_ integer: Int64) -> [ValidationError] {
        // Not in 9.3, but a value its column type cannot hold must not be saved silently truncated.
        if let range = attribute.type.integerRange, !range.contains(integer) {
            let tooLarge = integer > range.upperBound
            return [
                ValidationError(
                    tooLarge ? .numberTooLarge : .numberTooSmall,
                    message: tooLarge
                        ? "must be at most \(range.upperBound), the largest \(attribute.type.name)"
                        : "must be at least \(range.lowerBound), the smallest \(attribute.type.name)",
                    rule: tooLarge ? "SELF <= \(range.upperBound)" : "SELF >= \(range.lowerBound)")
            ]
        }
        return checkNumber(
            isBelow: { exact, bound in exact.map { Decimal(integer) < $0 } ?? (Double(integer) < bound) },
            isAbove: { exact, bound in exact.map { Decimal(integer) > $0 } ?? (Double(integer) > bound) })
    }

    /// A double (or float) against the model's bounds.
    private func check(_ double: Double) -> [ValidationError] {
        checkNumber(isBelow: { _, bound in double < bound }, isAbove: { _, bound in double > bound })
    }

    /// A decimal against its declared precision and scale, then against the model's bounds, exactly: 0.1 is not
    /// below a minimum written as 0.1.
    private func check(_ decimal: Decimal) -> [ValidationError] {
        let double = NSDecimalNumber(decimal: decimal).doubleValue
        if let broken = digits?.check(decimal, approximately: double) { return [broken] }
        return checkNumber(
            isBelow: { exact, bound in exact.map { decimal < $0 } ?? (double < bound) },
            isAbove: { exact, bound in exact.map { decimal > $0 } ?? (double > bound) })
    }

    /// 1620 when `isBelow` the minimum, 1610 when `isAbove` the maximum; each gets the exact and `Double` bound.
    private func checkNumber(
        isBelow: (Decimal?, Double) -> Bool, isAbove: (Decimal?, Double) -> Bool
    ) -> [ValidationError] {
        var errors: [ValidationError] = []
        if let min = attribute.minValue, isBelow(exactMinimum, min) {
            errors.append(
                ValidationError(.numberTooSmall, message: "must be at least \(shown(min))",
                    rule: "SELF >= \(shown(min))"))
        }
        if let max = attribute.maxValue, isAbove(exactMaximum, max) {
            errors.append(
                ValidationError(.numberTooLarge, message: "must be at most \(shown(max))",
                    rule: "SELF <= \(shown(max))"))
        }
        return errors
    }

    /// A date against the model's bounds (seconds since 1970).
    private func check(_ date: Date) -> [ValidationError] {
        let seconds = date.timeIntervalSince1970
        var errors: [ValidationError] = []
        if let min = attribute.minValue, seconds < min {
            errors.append(
                ValidationError(.dateTooSoon, message: "must not be before \(shown(min))",
                    rule: "SELF >= \(shown(min))"))
        }
        if let max = attribute.maxValue, seconds > max {
            errors.append(
                ValidationError(.dateTooLate, message: "must not be after \(shown(max))",
                    rule: "SELF <= \(shown(max))"))
        }
        return errors
    }

    /// A string's length in UTF-16 code units (as `NSString.length` counts it), then its pattern.
    private func check(_ string: String) -> [ValidationError] {
        var errors = checkLength(string.utf16.count)
        if let pattern, let broken = checkPattern(string, pattern) { errors.append(broken) }
        return errors
    }

    /// 1680 when `pattern`, the attribute's regular expression, does not match all of `string`.
    private func checkPattern(_ string: String, _ pattern: WholeStringRegex) -> ValidationError? {
        guard !pattern.matches(string) else { return nil }
        let source = attribute.regularExpression ?? ""
        return ValidationError(
            .stringPatternMatching, message: "must match the regular expression '\(source)' as a whole",
            rule: "SELF MATCHES '\(source)'")
    }

    /// A string's length in UTF-16 code units against the model's bounds.
    private func checkLength(_ length: Int) -> [ValidationError] {
        var errors: [ValidationError] = []
        if let min = attribute.minLength, length < min {
            errors.append(
                ValidationError(
                    .stringTooShort, message: "must be at least \(min) UTF-16 code units long",
                        rule: "length >= \(min)"))
        }
        if let max = attribute.maxLength, length > max {
            errors.append(
                ValidationError(
                    .stringTooLong, message: "must be at most \(max) UTF-16 code units long", rule: "length <= \(max)"))
        }
        return errors
    }

    /// A bound as the model file writes it: a date as ISO 8601, a whole number without `.0`.
    private func shown(_ bound: Double) -> String {
        ModelValidator.shown(bound, attribute.type)
    }

    /// A decimal's stored text.
    private static func storedText(_ decimal: Decimal) -> [UInt8]? {
        let stored: SQLiteValue = StoredValueCodec.encode(.decimal(decimal), as: .decimal)
        guard case .text(let text) = stored else { return nil }
        return Array(text.utf8)
    }

    /// `bound` as written (its shortest round-tripping decimal form, `0.1` rather than the binary value
    /// 0.1000000000000000055…), or nil when it is not finite.
    static func exactDecimal(_ bound: Double) -> Decimal? {
        guard bound.isFinite else { return nil }
        return Decimal(string: "\(bound)", locale: Locale(identifier: "en_US_POSIX"))
    }
}
