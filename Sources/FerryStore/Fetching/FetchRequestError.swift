/// Why a fetch request cannot run: a key path that names nothing, an option the store cannot honour, or a stored
/// value that does not decode. The message names the entity and key path, never a stored value.
public struct FetchRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; new codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name, such as `unknownKeyPath`.
        public var rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The entity fetched is not in the model.
        public static let unknownEntity = Code(rawValue: "unknownEntity")
        /// A sort, fetch, group-by or aggregate key path names no stored attribute or to-one relationship.
        public static let unknownKeyPath = Code(rawValue: "unknownKeyPath")
        /// A key path goes through a to-many relationship, which sorts, properties and groups cannot use.
        public static let toManyKeyPath = Code(rawValue: "toManyKeyPath")
        /// The request combines options the store cannot honour (a fetched key path outside the group-by, a
        /// sum of strings, two results with one name, a negative limit…).
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// A stored value does not decode as its attribute's type (a store written by something else).
        public static let undecodableValue = Code(rawValue: "undecodableValue")
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong.
    public var message: String
    /// The entity fetched.
    public var entityName: String
    /// The key path concerned, if any.
    public var keyPath: String?

    /// Creates an error.
    public init(code: Code, message: String, entityName: String, keyPath: String? = nil) {
        self.code = code
        self.message = message
        self.entityName = entityName
        self.keyPath = keyPath
    }

    /// The message, which names the entity and the key path.
    public var description: String { message }
}
