/// Why a migration cannot be planned or run.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        /// The `NSCocoaErrorDomain` code Core Data uses for the same failure.
        public var coreDataCode: Int
        public init(rawValue: String) {
            self.init(rawValue: rawValue, coreDataCode: 134110)
        }
        init(rawValue: String, coreDataCode: Int) {
            self.rawValue = rawValue
            self.coreDataCode = coreDataCode
        }
        public var description: String { rawValue }

        /// A change cannot be inferred (`NSMigrationMissingMappingModelError`): splitting an entity, a type change
        /// that is not a widening, moving an entity to another hierarchy… It needs a custom stage.
        public static let notInferable = Code(rawValue: "notInferable", coreDataCode: 134140)
        /// The store's data break a rule of the new model and the violation policy is `fail`
        /// (`NSMigrationConstraintViolationError`).
        public static let dataViolation = Code(rawValue: "dataViolation", coreDataCode: 134111)
        /// The migration would remove data and destructive changes were not allowed.
        public static let destructive = Code(rawValue: "destructive", coreDataCode: 134110)
        /// No version of a versioned model matches the store's model (`NSMigrationMissingSourceModelError`).
        public static let missingSourceModel = Code(rawValue: "missingSourceModel", coreDataCode: 134130)
        /// Automatic migration was not possible (manual migration asked for, or the plan is destructive or blocked by
        /// data); the message shows the plan and the command to run.
        public static let needsManualMigration = Code(rawValue: "needsManualMigration", coreDataCode: 134100)
        /// A custom stage's handler failed.
        public static let stageFailed = Code(rawValue: "stageFailed", coreDataCode: 134110)
    }

    /// What kind of failure it is.
    public var code: Code
    /// What happened and what would make it possible.
    public var message: String
    /// The store's path.
    public var path: String?
    /// The plan, when one was made.
    public var plan: MigrationPlan?
    /// The error behind this one, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, path: String? = nil, plan: MigrationPlan? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.plan = plan
        self.underlying = underlying
    }

    public var description: String {
        var text = path.map { "\($0): " } ?? ""
        text += message
        if let underlying { text += " (\(underlying))" }
        return text
    }
}
