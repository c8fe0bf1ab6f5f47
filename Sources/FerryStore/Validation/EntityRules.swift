/// One entity's validation rules, prepared once per ``ObjectValidator``: its attributes' rules and its
/// relationships, inherited ones first, in model order.
final class EntityRules: Sendable {
    /// The entity's ancestry, root first, ending with the entity itself (for inherited custom validators).
    let ancestry: [String]
    /// The rules of every attribute the validator checks: all but derived ones, in model order.
    let attributes: [AttributeRules]
    /// For each of `attributes`, its position among all the entity's attributes (inherited first, derived
    /// included): the slot a managed object keeps its value in.
    let attributeSlots: [Int]
    /// For each of `attributes`, what a value needs for a pass without the full rules (see ``QuickAttributeCheck``).
    let quickChecks: [QuickAttributeCheck]
    /// Every relationship, in model order.
    let relationships: [RelationshipDescription]
    /// The names of every attribute, derived ones included: the keys callers may pass values for.
    let attributeNames: Set<String>
    /// The names of every relationship.
    let relationshipNames: Set<String>

    /// Prepares the rules of `entity`, which is in `model`.
    ///
    /// - Throws: ``ModelError`` when an attribute's regular expression does not compile.
    init(entity: String, in model: ManagedObjectModel) throws {
        ancestry = model.ancestry(of: entity).map(\.name)
        let allAttributes = model.allAttributes(of: entity)
        // Derived attributes are skipped: the store computes them by trigger at save, after validation (8.2),
        // and the app cannot set them. (Core Data itself reports a nil non-optional derived attribute as 1570
        // on insert [8.2, obs]; Ferry does not reproduce that trap.) Transient attributes are checked.
        attributeSlots = allAttributes.indices.filter { allAttributes[$0].derivation == nil }
        attributes = try attributeSlots.map { try AttributeRules(allAttributes[$0], of: entity) }
        quickChecks = attributes.map(QuickAttributeCheck.init)
        relationships = model.allRelationships(of: entity)
        attributeNames = Set(allAttributes.map(\.name))
        relationshipNames = Set(relationships.map(\.name))
    }

    /// The rule `count` breaks for `relationship`, if any, as Core Data checks it.
    ///
    /// `count` is how many objects the relationship holds: 0 or 1 for a to-one relationship, where anything else
    /// is a programming error and traps.
    static func check(_ relationship: RelationshipDescription, count: Int) -> ValidationError? {
        precondition(count >= 0, "a relationship cannot hold \(count) objects")
        guard relationship.isToMany else {
            precondition(count <= 1, "to-one relationship '\(relationship.name)' cannot hold \(count) objects")
            // 9.3: "Non-optional attribute or to-one relationship that is nil -> 1570".
            guard count == 0, !relationship.isOptional else { return nil }
            return ValidationError(
                .missingMandatoryProperty, message: "an object is required (not optional)", rule: "SELF != nil")
        }
        // 9.3: "For an **optional** to-many that is empty, `minCount` is not enforced (the count rule applies
        // only when non-empty)".
        if count == 0 && relationship.isOptional { return nil }
        // A non-optional to-many that is empty is not 1570: 9.3 gives 1570 only to a "Non-optional attribute or
        // to-one relationship that is nil", and a to-many is an empty set, never nil. Its count rule applies even
        // when empty, and being non-optional it needs at least one object: 1580.
        let minimum = relationship.isOptional ? relationship.minCount : max(relationship.minCount, 1)
        if count < minimum {
            return ValidationError(
                .relationshipLacksMinimumCount, message: "must hold at least \(objects(minimum))",
                rule: "@count >= \(minimum)")
        }
        // 9.3: "above `maxCount` -> 1590"; a maxCount of 0 means no maximum.
        if relationship.maxCount > 0 && count > relationship.maxCount {
            return ValidationError(
                .relationshipExceedsMaximumCount, message: "must hold at most \(objects(relationship.maxCount))",
                rule: "@count <= \(relationship.maxCount)")
        }
        return nil
    }

    /// `1 object`, `3 objects`.
    private static func objects(_ count: Int) -> String {
        count == 1 ? "1 object" : "\(count) objects"
    }
}
