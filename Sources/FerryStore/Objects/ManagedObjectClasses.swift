/// The ``ManagedObject`` subclass that represents each entity's objects; entities without one of their own use
/// their nearest ancestor's, and otherwise ``ManagedObject`` itself.
struct ManagedObjectClasses: Sendable {
    private var byEntity: [String: ManagedObject.Type] = [:]
    /// Every entity's class, resolved through its ancestry.
    private var resolved: [String: ManagedObject.Type] = [:]
    let model: ManagedObjectModel

    init(model: ManagedObjectModel) {
        self.model = model
    }

    /// Makes `type` the class of `entity`'s objects (and of its sub-entities' without a class of their own).
    mutating func register(_ type: ManagedObject.Type, forEntity entity: String) {
        precondition(model.entity(named: entity) != nil, "the model has no entity '\(entity)'")
        byEntity[entity] = type
        let registered = byEntity
        resolved = [:]
        for entity in model.entities {
            resolved[entity.name] = model.ancestry(of: entity.name).reversed().compactMap { registered[$0.name] }.first
        }
    }

    /// The class of `entity`'s objects.
    func type(for entity: String) -> ManagedObject.Type {
        // Most containers register no class: no lookup by name for each object made.
        resolved.isEmpty ? ManagedObject.self : resolved[entity] ?? ManagedObject.self
    }
}
