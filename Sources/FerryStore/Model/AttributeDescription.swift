/// One attribute of an entity: its type, whether it may be nil, its default and its validation rules.
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name, which is also its column name.
    public var name: String
    /// The type of its values.
    public var type: AttributeType
    /// Whether nil is allowed. Non-optional attributes that are nil fail validation with code 1570.
    public var isOptional: Bool
    /// The value of a newly inserted object, or nil.
    public var defaultValue: AttributeValue?
    /// Kept in memory only, never stored.
    public var isTransient: Bool
    /// Whether the column gets an index.
    public var isIndexed: Bool
    /// Smallest allowed number or date (dates as seconds since 1970).
    public var minValue: Double?
    /// Largest allowed number or date.
    public var maxValue: Double?
    /// Shortest allowed string, in UTF-16 code units (as `NSString.length`).
    public var minLength: Int?
    /// Longest allowed string, in UTF-16 code units.
    public var maxLength: Int?
    /// A regular expression the whole string must match.
    public var regularExpression: String?
    /// Binary values above the store's threshold may live in files beside the store.
    public var allowsExternalStorage: Bool
    /// An expression the store maintains (`@count items`, `category.name`, `now()`, `canonical:name`…);
    /// derived attributes are read-only. SQLite triggers compute them when rows are written (by saves, batch
    /// requests or plain SQL), so an object in a context keeps its old derived values after a save until it is
    /// refreshed, as in Core Data.
    public var derivation: String?
    /// For a decimal: the most significant digits its values have (1…38), as SQL's DECIMAL(precision, scale).
    /// Validation refuses a value with more digits, before or after the point, rather than round it; a Parquet
    /// export writes the attribute as DECIMAL(precision, scale) instead of its text. `nil` leaves it undeclared.
    public var decimalPrecision: Int?
    /// For a decimal with a ``decimalPrecision``: the digits after the point (0…precision; 0 when not given).
    public var decimalScale: Int?
    /// The name this element had in the model version a migration starts from (Core Data's `renamingIdentifier`),
    /// so that a migration renames it and keeps its data; `nil` when it kept its name. Not part of the version hash.
    public var renamingIdentifier: String? = nil

    /// For a transformable: the Swift type of its values, such as `[String]` (Xcode's `customClassName`), which
    /// generated code decodes to; `nil` when not given. It does not shape the store (no part of the version hash).
    public var valueTypeName: String?

    /// Creates an attribute; only the name and type are required.
    public init(
        name: String, type: AttributeType, isOptional: Bool = true, defaultValue: AttributeValue? = nil,
        isTransient: Bool = false, isIndexed: Bool = false, minValue: Double? = nil, maxValue: Double? = nil,
        minLength: Int? = nil, maxLength: Int? = nil, regularExpression: String? = nil,
        allowsExternalStorage: Bool = false, derivation: String? = nil, decimalPrecision: Int? = nil,
        decimalScale: Int? = nil, valueTypeName: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isTransient = isTransient
        self.isIndexed = isIndexed
        self.minValue = minValue
        self.maxValue = maxValue
        self.minLength = minLength
        self.maxLength = maxLength
        self.regularExpression = regularExpression
        self.allowsExternalStorage = allowsExternalStorage
        self.derivation = derivation
        self.decimalPrecision = decimalPrecision
        self.decimalScale = decimalScale
        self.valueTypeName = valueTypeName
    }

    /// Whether the attribute has a column (it is neither transient).
    public var isStored: Bool { !isTransient }
}
