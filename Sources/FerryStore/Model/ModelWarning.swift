/// Something in a model that works but is probably not what its author meant, such as a relationship without an
/// inverse. Warnings never stop a model from loading; ``ModelFile/warnings`` and
/// ``ManagedObjectModel/validate()`` return them so that a tool can print them.
public struct ModelWarning: Sendable, Hashable, CustomStringConvertible {
    /// What kind of warning this is. Extensible: compare with the static members.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A relationship without an inverse: Ferry cannot keep the other side up to date, and deleting an
        /// object can leave references to it.
        public static let missingInverse = Code(rawValue: "missingInverse")
        /// A relationship whose inverse does not name it back; declare the inverse on both sides.
        public static let oneSidedInverse = Code(rawValue: "oneSidedInverse")
        /// An abstract entity without sub-entities: no object of it can ever exist.
        public static let abstractWithoutSubentities = Code(rawValue: "abstractWithoutSubentities")
        /// The same uniqueness constraint declared twice.
        public static let duplicateConstraint = Code(rawValue: "duplicateConstraint")
        /// A non-optional derived attribute without a default: validation runs before the store computes it, so
        /// inserts fail with a missing value.
        public static let mandatoryDerivedAttribute = Code(rawValue: "mandatoryDerivedAttribute")
    }

    /// What kind of warning this is.
    public var code: Code
    /// What was found and what to do about it.
    public var message: String
    /// The model file's path as given; `nil` for a model built in Swift.
    public var file: String?
    /// The line in ``file``, from 1.
    public var line: Int?
    /// What the warning is about.
    public var element: ModelElement

    /// Creates a warning.
    public init(_ code: Code, _ message: String, element: ModelElement, file: String? = nil, line: Int? = nil) {
        self.code = code
        self.message = message
        self.element = element
        self.file = file
        self.line = line
    }

    /// The entity involved, if any.
    public var entity: String? { element.entity }
    /// The attribute or relationship involved, if any.
    public var property: String? { element.property }

    /// `path:line: entity E, relationship r: message`.
    public var description: String {
        ModelElement.diagnosticLine(file: file, line: line, element: element, message: message)
    }
}
