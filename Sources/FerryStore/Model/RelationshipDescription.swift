/// One relationship of an entity: to-one or to-many, its inverse, ordering, delete rule and counts.
public struct RelationshipDescription: Sendable, Hashable {
    /// The relationship's name; a to-one relationship's foreign-key column is named after it.
    public var name: String
    /// The entity the relationship points at.
    public var destinationEntity: String
    /// The relationship on the destination that points back, if any. A missing inverse is a model warning.
    public var inverseName: String?
    /// Whether it holds many objects.
    public var isToMany: Bool
    /// Whether a to-many keeps its order (an order column in the join).
    public var isOrdered: Bool
    /// What deleting the source does to the destination objects.
    public var deleteRule: DeleteRule
    /// Whether it may be empty (nil for to-one).
    public var isOptional: Bool
    /// Fewest objects a non-empty to-many may hold (0: no minimum).
    public var minCount: Int
    /// Most objects a to-many may hold (0: no maximum).
    public var maxCount: Int
    /// The name this element had in the model version a migration starts from (Core Data's `renamingIdentifier`),
    /// so that a migration renames it and keeps its data; `nil` when it kept its name. Not part of the version hash.
    public var renamingIdentifier: String? = nil

    /// Creates a relationship; to-one, optional and nullify unless said otherwise.
    public init(
        name: String, destinationEntity: String, inverseName: String? = nil, isToMany: Bool = false,
        isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, isOptional: Bool = true, minCount: Int = 0,
        maxCount: Int = 0
    ) {
        self.name = name
        self.destinationEntity = destinationEntity
        self.inverseName = inverseName
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
    }
}
