/// A failure of a pipeline run that is not a single store or input error: an invalid spec, too many rejects, a
/// locked store, an interrupted run. Its ``Code`` maps to the exit code a cron wrapper acts on.
public struct PipelineError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; extensible.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The pipeline or import options do not fit the model or the input (exit 78).
        public static let invalidSpec = Code(rawValue: "invalidSpec")
        /// More records were rejected than the step allows (exit 65).
        public static let tooManyRejects = Code(rawValue: "tooManyRejects")
        /// Records conflict in a way the merge policy does not resolve (exit 65).
        public static let conflict = Code(rawValue: "conflict")
        /// Another run holds the store (exit 75).
        public static let storeLocked = Code(rawValue: "storeLocked")
        /// An input is missing or unreadable (exit 66).
        public static let inputMissing = Code(rawValue: "inputMissing")
        /// `--resume` found nothing to resume, or the input changed since (exit 64: the option does not fit).
        public static let cannotResume = Code(rawValue: "cannotResume")
        /// A full sync would delete more than its guard allows (exit 65).
        public static let syncGuard = Code(rawValue: "syncGuard")
        /// SIGINT or SIGTERM stopped the run at a chunk boundary (exit 130).
        public static let interrupted = Code(rawValue: "interrupted")
        /// An export or snapshot was asked for something it cannot do (an empty sort key, an incremental export to
        /// an unnamed output…): a usage error.
        public static let invalidExport = Code(rawValue: "invalidExport")
        /// The output of a snapshot already exists; Ferry never overwrites one.
        public static let outputExists = Code(rawValue: "outputExists")
        /// The input's columns break the step's schema contract (``SchemaContract/freeze``: the input has columns the
        /// entity lacks): the data do not fit the model, exit 65.
        public static let schemaViolation = Code(rawValue: "schemaViolation")
        /// A row of the store's run ledger cannot be read (changed by hand or damaged): exit 66, as for a store
        /// that cannot be read.
        public static let corruptLedger = Code(rawValue: "corruptLedger")
    }

    /// What went wrong.
    public var code: Code
    /// What happened and what would be valid, for people.
    public var message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
