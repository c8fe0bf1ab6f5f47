/// An error opening, reading or writing a store, with the Core Data error number where one exists.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; `coreDataCode` gives the matching `NSCocoaErrorDomain` number.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        /// The `NSCocoaErrorDomain` code Core Data uses for the same failure.
        public var coreDataCode: Int
        public init(rawValue: String) {
            self.init(rawValue: rawValue, coreDataCode: 134060)
        }
        init(rawValue: String, coreDataCode: Int) {
            self.rawValue = rawValue
            self.coreDataCode = coreDataCode
        }
        public var description: String { rawValue }

        /// The store was created with another model (`NSPersistentStoreIncompatibleVersionHashError`).
        public static let incompatibleModel = Code(rawValue: "incompatibleModel", coreDataCode: 134100)
        /// The file is an SQLite database that Ferry did not create (`NSPersistentStoreIncompatibleSchemaError`).
        public static let notAFerryStore = Code(rawValue: "notAFerryStore", coreDataCode: 134020)
        /// The store could not be opened (`NSPersistentStoreOpenError`).
        public static let openFailed = Code(rawValue: "openFailed", coreDataCode: 134080)
        /// There is no store file at the path given, and the call would not create one
        /// (`NSFileReadNoSuchFileError`).
        public static let fileNotFound = Code(rawValue: "fileNotFound", coreDataCode: 260)
        /// The store keeps no model of its own: it is in memory, or was created before stores kept their models
        /// and has not been opened with its model since.
        public static let noStoredModel = Code(rawValue: "noStoredModel", coreDataCode: 134060)
        /// The model a store keeps does not load, or is not the model the store was created with (its version hash
        /// differs from the store's `model_hash`).
        public static let invalidStoredModel = Code(rawValue: "invalidStoredModel", coreDataCode: 134060)
        /// A transformable attribute names a value transformer that is not registered.
        public static let unknownTransformer = Code(rawValue: "unknownTransformer", coreDataCode: 134060)
        /// An object ID names a row the store does not have (`NSManagedObjectReferentialIntegrityError`).
        public static let objectNotFound = Code(rawValue: "objectNotFound", coreDataCode: 133000)
        /// A write collided with a uniqueness constraint and the merge policy did not resolve it
        /// (`NSManagedObjectConstraintMergeError`); the message names the entity and the constraint's attributes,
        /// never the values.
        public static let constraintConflict = Code(rawValue: "constraintConflict", coreDataCode: 133021)
        /// SQLite reported an error (`NSSQLiteError`); ``StoreError/underlying`` has it.
        public static let sqlite = Code(rawValue: "sqlite", coreDataCode: 134180)
    }

    public var code: Code
    /// What happened and what would fix it.
    public var message: String
    /// The store's path.
    public var path: String?
    /// The SQLite error behind this one, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, path: String? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.underlying = underlying
    }

    public var description: String {
        var text = (path.map { "\($0): " } ?? "") + message
        if let underlying { text += " (\(underlying))" }
        return text
    }
}
