/// A named fetch request kept in the model (Core Data's fetch request templates).
public struct FetchRequestTemplate: Sendable, Hashable {
    /// The entity fetched.
    public var entity: String
    /// The predicate's format string; `$NAME` variables are substituted when the template is used.
    public var predicate: String

    /// Creates a template.
    public init(entity: String, predicate: String) {
        self.entity = entity
        self.predicate = predicate
    }
}

/// A data model: entities with their attributes, relationships, constraints and fetch request templates.
///
/// Build one in Swift or load it from a YAML model file (see ``ManagedObjectModel/load(from:)``):
///
/// ```swift
/// let model = ManagedObjectModel(entities: [
///     EntityDescription(
///         name: "Category",
///         attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
///         uniquenessConstraints: [["name"]])
/// ])
/// ```
public struct ManagedObjectModel: Sendable, Hashable {
    /// The entities, in declaration order.
    public var entities: [EntityDescription]
    /// Fetch request templates by name.
    public var fetchRequestTemplates: [String: FetchRequestTemplate]

    /// Creates a model.
    public init(entities: [EntityDescription], fetchRequestTemplates: [String: FetchRequestTemplate] = [:]) {
        self.entities = entities
        self.fetchRequestTemplates = fetchRequestTemplates
    }

    /// The entity named `name`.
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    /// The chain from the root entity down to `name` (root first); empty when the entity is unknown.
    public func ancestry(of name: String) -> [EntityDescription] {
        var chain: [EntityDescription] = []
        var next: String? = name
        while let current = next, let entity = entity(named: current), !chain.contains(where: { $0.name == current }) {
            chain.insert(entity, at: 0)
            next = entity.parentEntity
        }
        return chain
    }

    /// The root of `name`'s hierarchy, whose table holds the whole hierarchy.
    public func rootEntity(of name: String) -> String {
        ancestry(of: name).first?.name ?? name
    }

    /// Every attribute of `name`, inherited ones first.
    public func allAttributes(of name: String) -> [AttributeDescription] {
        ancestry(of: name).flatMap(\.attributes)
    }

    /// Every relationship of `name`, inherited ones first.
    public func allRelationships(of name: String) -> [RelationshipDescription] {
        ancestry(of: name).flatMap(\.relationships)
    }

    /// Every fetched property of `name`, inherited ones first.
    public func allFetchedProperties(of name: String) -> [FetchedPropertyDescription] {
        ancestry(of: name).flatMap(\.fetchedProperties)
    }

    /// Every uniqueness constraint that applies to `name`, inherited ones first.
    public func allUniquenessConstraints(of name: String) -> [[String]] {
        ancestry(of: name).flatMap(\.uniquenessConstraints)
    }

    /// The entities that inherit from `name`, directly or not.
    public func subentities(of name: String) -> [String] {
        entities.filter { $0.name != name && ancestry(of: $0.name).contains { $0.name == name } }.map(\.name)
    }
}
