/// An object that may not be saved (or deleted) as it is, saying which object, which property and what the
/// model expects: Core Data's validation errors, with the same code numbers (`NSCocoaErrorDomain`).
///
/// A single failing check is reported as itself; two or more are gathered by ``combined(_:)`` into one error
/// with code ``Code/multipleErrors`` (1560) whose ``detailedErrors`` hold them all:
///
/// ```swift
/// let errors = validator.validateForInsertOrUpdate(
///     entity: "Book", attributes: values, relationshipCounts: counts, objectDescription: "Book/p12")
/// if let error = ValidationError.combined(errors) { throw error }
/// ```
///
/// A ``message`` says what was expected and never holds the offending value: logs travel, and the value may be
/// row data. The value's kind may be named (`found a string`), the model's own bounds and pattern may be shown.
public struct ValidationError: Error, Sendable, CustomStringConvertible {
    /// What kind of check failed; the raw values are Core Data's (`CoreDataErrors.h`). Extensible: compare with
    /// the static members.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// Core Data's number for the code.
        public var rawValue: Int
        /// A code by number; any number is accepted, listed or not.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// 1550: a generic failure, used by custom validators and for a value of the wrong type.
        public static let managedObjectValidation = Code(rawValue: 1550)
        /// 1560: several failures; see ``ValidationError/detailedErrors``.
        public static let multipleErrors = Code(rawValue: 1560)
        /// 1570: a non-optional attribute or to-one relationship is nil.
        public static let missingMandatoryProperty = Code(rawValue: 1570)
        /// 1580: a to-many relationship holds fewer objects than its minimum.
        public static let relationshipLacksMinimumCount = Code(rawValue: 1580)
        /// 1590: a to-many relationship holds more objects than its maximum.
        public static let relationshipExceedsMaximumCount = Code(rawValue: 1590)
        /// 1600: a deleted object still has objects in a relationship whose delete rule is Deny.
        public static let relationshipDeniedDelete = Code(rawValue: 1600)
        /// 1610: a number above its maximum.
        public static let numberTooLarge = Code(rawValue: 1610)
        /// 1620: a number below its minimum.
        public static let numberTooSmall = Code(rawValue: 1620)
        /// 1630: a date after its maximum.
        public static let dateTooLate = Code(rawValue: 1630)
        /// 1640: a date before its minimum.
        public static let dateTooSoon = Code(rawValue: 1640)
        /// 1660: a string longer than its maximum length.
        public static let stringTooLong = Code(rawValue: 1660)
        /// 1670: a string shorter than its minimum length.
        public static let stringTooShort = Code(rawValue: 1670)
        /// 1680: a string that does not match its regular expression.
        public static let stringPatternMatching = Code(rawValue: 1680)

        /// The code's name, as the static member is spelled, or nil for a code this type does not list.
        public var name: String? {
            switch rawValue {
            case 1550: "managedObjectValidation"
            case 1560: "multipleErrors"
            case 1570: "missingMandatoryProperty"
            case 1580: "relationshipLacksMinimumCount"
            case 1590: "relationshipExceedsMaximumCount"
            case 1600: "relationshipDeniedDelete"
            case 1610: "numberTooLarge"
            case 1620: "numberTooSmall"
            case 1630: "dateTooLate"
            case 1640: "dateTooSoon"
            case 1660: "stringTooLong"
            case 1670: "stringTooShort"
            case 1680: "stringPatternMatching"
            default: nil
            }
        }

        /// `1570 missingMandatoryProperty`, or the bare number for an unlisted code.
        public var description: String {
            name.map { "\(rawValue) \($0)" } ?? String(rawValue)
        }
    }

    /// What failed.
    public var code: Code
    /// The validated object's entity. Nil only for a ``Code/multipleErrors`` error whose errors concern objects
    /// of different entities, or for an error a custom validator made before ``ObjectValidator`` filled it in.
    public var entity: String?
    /// The attribute or relationship that failed, or nil when the error is about the whole object or several
    /// properties.
    public var key: String?
    /// The caller's opaque description of the object (for example its object ID), as passed to the validator.
    /// Nil in the same cases as ``entity``.
    public var objectDescription: String?
    /// What was expected, without the offending value.
    public var message: String
    /// The offending value (Core Data's `NSValidationValueErrorKey`) for an attribute's failure; nil for a
    /// relationship, a whole object, or a nil value. Kept out of ``description`` and ``message``: logs travel, and
    /// the value may be row data.
    public var value: AttributeValue?
    /// The rule that failed, as Core Data's validation predicates spell it (`NSValidationPredicateErrorKey`):
    /// `SELF != nil`, `SELF >= 0`, `length <= 20`, `SELF MATCHES '[A-Z]+'`, `@count >= 2`; nil for a custom
    /// validator's error unless it sets one.
    public var rule: String?
    /// For ``Code/multipleErrors``, every individual error, flat and in the order found; otherwise empty.
    public var detailedErrors: [ValidationError]

    /// Creates an error about one check. Custom validators may leave `entity`, `key` and `objectDescription`
    /// out: ``ObjectValidator`` fills them in with the object and key being validated.
    public init(
        _ code: Code, message: String, entity: String? = nil, key: String? = nil, objectDescription: String? = nil,
        value: AttributeValue? = nil, rule: String? = nil
    ) {
        self.code = code
        self.message = message
        self.entity = entity
        self.key = key
        self.objectDescription = objectDescription
        self.value = value
        self.rule = rule
        self.detailedErrors = []
    }

    /// Gathers errors as Core Data does: none gives nil, one gives that error itself, two or more
    /// give one ``Code/multipleErrors`` error holding them all in order. Nested multiple-errors errors are
    /// flattened into their individual errors first, so ``detailedErrors`` never holds a 1560.
    ///
    /// The result's ``entity`` and ``objectDescription`` are set when every error shares them (one object's
    /// errors), and nil otherwise (a save across several objects); its ``key`` likewise.
    public static func combined(_ errors: [ValidationError]) -> ValidationError? {
        let flat = errors.flatMap(\.allErrors)
        guard let first = flat.first else { return nil }
        guard flat.count > 1 else { return first }
        var result = ValidationError(
            .multipleErrors, message: "\(flat.count) validation errors",
            entity: shared(\.entity, in: flat), key: shared(\.key, in: flat),
            objectDescription: shared(\.objectDescription, in: flat))
        result.detailedErrors = flat
        return result
    }

    /// Each failure on its own: the flattened ``detailedErrors`` of a multiple-errors error, or this error alone.
    public var allErrors: [ValidationError] {
        guard code == .multipleErrors, !detailedErrors.isEmpty else { return [self] }
        return detailedErrors.flatMap(\.allErrors)
    }

    /// One line per failure: `Book Book/p12, title: must have a value (1570 missingMandatoryProperty)`.
    /// A multiple-errors error starts with a summary line.
    public var description: String {
        let failures = allErrors
        guard failures.count > 1 || code == .multipleErrors else { return singleLine }
        return ([singleLine] + failures.map { "  " + $0.singleLine }).joined(separator: "\n")
    }

    /// This error's own line, ignoring ``detailedErrors``.
    private var singleLine: String {
        let object = [entity, objectDescription].compactMap { $0 }.joined(separator: " ")
        let subject = [object.isEmpty ? nil : object, key].compactMap { $0 }.joined(separator: ", ")
        let prefix = subject.isEmpty ? "" : subject + ": "
        return "\(prefix)\(message) (\(code))"
    }

    /// The value every error has for `property`, or nil when they differ.
    private static func shared(_ property: KeyPath<ValidationError, String?>, in errors: [ValidationError])
        -> String?
    {
        let values = Set(errors.map { $0[keyPath: property] })
        guard values.count == 1, let only = values.first else { return nil }
        return only
    }

    /// Fills in whichever of entity, key, object description and value is missing, here and in ``detailedErrors``.
    func filling(
        entity: String, key: String?, objectDescription: String, value: AttributeValue? = nil
    ) -> ValidationError {
        var filled = self
        filled.entity = filled.entity ?? entity
        filled.key = filled.key ?? key
        filled.objectDescription = filled.objectDescription ?? objectDescription
        filled.value = filled.value ?? value
        filled.detailedErrors = detailedErrors.map {
            $0.filling(entity: entity, key: key, objectDescription: objectDescription, value: value)
        }
        return filled
    }
}
