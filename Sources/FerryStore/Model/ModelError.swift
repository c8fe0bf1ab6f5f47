/// A model that cannot be used, saying where and why: one line per problem, compiler-style.
///
/// Loading a model file or calling ``ManagedObjectModel/validate()`` gathers every problem before throwing.
/// A single problem is thrown as itself; several are thrown as one error with code ``Code/multipleErrors``
/// whose ``detailedErrors`` hold them in file order (as Core Data's `NSValidationMultipleErrorsError`):
///
/// ```
/// Pipelines/catalog.model.yml:14: entity Product, attribute price: unknown type 'money'; expected one of …
/// Pipelines/catalog.model.yml:22: entity Product, relationship category: unknown destination entity …
/// ```
public struct ModelError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem this is. Extensible: compare with the static members.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Several problems; see ``ModelError/detailedErrors``.
        public static let multipleErrors = Code(rawValue: "multipleErrors")
        /// The model file does not exist.
        public static let fileNotFound = Code(rawValue: "fileNotFound")
        /// The model file exists but cannot be read as UTF-8 text.
        public static let unreadableFile = Code(rawValue: "unreadableFile")
        /// The file is not well-formed YAML.
        public static let invalidYAML = Code(rawValue: "invalidYAML")
        /// A key the format does not know, usually a typo.
        public static let unknownKey = Code(rawValue: "unknownKey")
        /// A required key is missing.
        public static let missingKey = Code(rawValue: "missingKey")
        /// A value of the wrong shape or kind: a list where a mapping belongs, `yes` for a boolean, `-1` for a
        /// length.
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// An attribute type that does not exist.
        public static let unknownType = Code(rawValue: "unknownType")
        /// Two entities, or two properties of one entity (inherited ones included), with the same name.
        public static let duplicateName = Code(rawValue: "duplicateName")
        /// A name Ferry or SQLite keeps for itself (`_pk`, `ferry_…`, `sqlite_…`).
        public static let reservedName = Code(rawValue: "reservedName")
        /// A name that is empty or not a plain SQL identifier.
        public static let invalidName = Code(rawValue: "invalidName")
        /// A parent entity that does not exist.
        public static let unknownParent = Code(rawValue: "unknownParent")
        /// Entities that are their own ancestors.
        public static let inheritanceCycle = Code(rawValue: "inheritanceCycle")
        /// A relationship or fetch request template naming an entity that does not exist.
        public static let unknownEntity = Code(rawValue: "unknownEntity")
        /// An inverse relationship that does not exist on the destination.
        public static let unknownInverse = Code(rawValue: "unknownInverse")
        /// An inverse relationship that does not point back.
        public static let inverseMismatch = Code(rawValue: "inverseMismatch")
        /// A uniqueness constraint naming something other than stored, non-derived attributes of the entity.
        public static let invalidConstraint = Code(rawValue: "invalidConstraint")
        /// An index naming something that has no column.
        public static let invalidIndex = Code(rawValue: "invalidIndex")
        /// A rule that does not apply to the property, or a range whose minimum exceeds its maximum.
        public static let invalidRule = Code(rawValue: "invalidRule")
        /// A regular expression that does not compile.
        public static let invalidRegularExpression = Code(rawValue: "invalidRegularExpression")
        /// A default value that does not fit the attribute's type or rules.
        public static let invalidDefault = Code(rawValue: "invalidDefault")
        /// A derivation Ferry cannot maintain, or on an attribute that cannot be derived.
        public static let invalidDerivation = Code(rawValue: "invalidDerivation")
    }

    /// What went wrong.
    public var code: Code
    /// What was found and what was expected.
    public var message: String
    /// The model file's path as given; `nil` for a model built in Swift.
    public var file: String?
    /// The line in ``file``, from 1.
    public var line: Int?
    /// The column on ``line``, in Unicode scalars, from 1.
    public var column: Int?
    /// What the problem is about.
    public var element: ModelElement
    /// Every problem, in file order, when there are several (``code`` is then ``Code/multipleErrors``);
    /// otherwise empty.
    public var detailedErrors: [ModelError]

    /// Creates an error about one problem.
    public init(
        _ code: Code, _ message: String, element: ModelElement = .model, file: String? = nil, line: Int? = nil,
        column: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.element = element
        self.file = file
        self.line = line
        self.column = column
        self.detailedErrors = []
    }

    /// Gathers `errors` into one: the error itself when there is one, a ``Code/multipleErrors`` error otherwise.
    /// `errors` must not be empty.
    init(gathering errors: [ModelError], file: String?) {
        precondition(!errors.isEmpty, "gathering no model errors")
        if errors.count == 1 {
            self = errors[0]
            return
        }
        self.init(.multipleErrors, "\(errors.count) problems in the model", file: file)
        detailedErrors = errors
    }

    /// The entity involved, if any.
    public var entity: String? { element.entity }
    /// The attribute or relationship involved, if any.
    public var property: String? { element.property }

    /// Each problem on its own: ``detailedErrors``, or this error alone.
    public var allErrors: [ModelError] {
        detailedErrors.isEmpty ? [self] : detailedErrors
    }

    /// `path:line: entity E, attribute a: message`, one line per problem.
    public var description: String {
        allErrors.map(\.singleLine).joined(separator: "\n")
    }

    /// This problem's own line, ignoring ``detailedErrors``.
    private var singleLine: String {
        ModelElement.diagnosticLine(file: file, line: line, element: element, message: message)
    }

    /// Sorts problems into file order (by line; ones without a line last), keeping discovery order for ties.
    static func inFileOrder(_ errors: [ModelError]) -> [ModelError] {
        errors.enumerated()
            .sorted { ($0.element.line ?? Int.max, $0.offset) < ($1.element.line ?? Int.max, $1.offset) }
            .map(\.element)
    }
}
