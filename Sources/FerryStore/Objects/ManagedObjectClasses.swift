/// The ``ManagedObject`` subclass that represents each entity's objects; entities without one of their own use
/// their nearest ancestor's, and otherwise ``ManagedObject`` itself.
struct ManagedObjectClasses: Sendable {
    private var byEntity: [String: ManagedObject.Type] = [:]
    let model: ManagedObjectModel

    init(model: ManagedObjectModel) {
        self.model = model
    }

    /// Makes `type` the class of `entity`'s objects (and of its sub-entities' without a class of their own).
    mutating func register(_ type: ManagedObject.Type, forEntity entity: String) {
        precondition(model.entity(named: entity) != nil, "the model has no entity '\(entity)'")
        byEntity[entity] = type
    }

    /// The class of `entity`'s objects.
    func type(for entity: String) -> ManagedObject.Type {
        for ancestor in model.ancestry(of: entity).reversed() {
            if let type = byEntity[ancestor.name] { return type }
        }
        return ManagedObject.self
    }
}
