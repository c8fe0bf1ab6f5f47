/// One entity of a model: its attributes, relationships, constraints and place in an inheritance tree.
///
/// The properties listed here are the entity's own; ``ManagedObjectModel`` resolves inherited ones.
public struct EntityDescription: Sendable, Hashable {
    /// The entity's name; the root entity of a hierarchy names its table.
    public var name: String
    /// Whether objects of exactly this entity may not be created (only of its sub-entities).
    public var isAbstract: Bool
    /// The entity this one inherits from, if any.
    public var parentEntity: String?
    /// The entity's own attributes, in declaration order.
    public var attributes: [AttributeDescription]
    /// The entity's own relationships, in declaration order.
    public var relationships: [RelationshipDescription]
    /// Attribute-name lists whose values must be unique together; each list is one constraint.
    public var uniquenessConstraints: [[String]]
    /// Attribute-name lists that get a (non-unique) index each.
    public var indexes: [[String]]
    /// The entity's own fetched properties, in declaration order.
    public var fetchedProperties: [FetchedPropertyDescription] = []
    /// The name this element had in the model version a migration starts from (Core Data's `renamingIdentifier`),
    /// so that a migration renames it and keeps its data; `nil` when it kept its name. Not part of the version hash.
    public var renamingIdentifier: String? = nil

    /// Creates an entity.
    public init(
        name: String, isAbstract: Bool = false, parentEntity: String? = nil,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        uniquenessConstraints: [[String]] = [], indexes: [[String]] = [],
        fetchedProperties: [FetchedPropertyDescription] = []
    ) {
        self.name = name
        self.isAbstract = isAbstract
        self.parentEntity = parentEntity
        self.attributes = attributes
        self.relationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.fetchedProperties = fetchedProperties
    }

    /// The own attribute named `name`.
    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    /// The own fetched property named `name`.
    public func fetchedProperty(named name: String) -> FetchedPropertyDescription? {
        fetchedProperties.first { $0.name == name }
    }

    /// The own relationship named `name`.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }
}
