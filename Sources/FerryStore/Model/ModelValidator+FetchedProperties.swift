extension ModelValidator {
    /// Checks an entity's own fetched properties: a usable name that no other property of the entity (inherited
    /// ones included) has, an existing destination entity, and a predicate that parses.
    mutating func checkFetchedProperties(of entity: EntityDescription) {
        guard !entity.fetchedProperties.isEmpty else { return }
        let inherited =
            entitiesInCycles.contains(entity.name)
            ? [] : model.ancestry(of: entity.name).dropLast().flatMap(\.fetchedProperties).map(\.name)
        var taken = Set(
            (entity.attributes.map(\.name) + entity.relationships.map(\.name) + inherited).map { $0.lowercased() })
        if !entitiesInCycles.contains(entity.name) {
            for ancestor in model.ancestry(of: entity.name).dropLast() {
                let names = ancestor.attributes.map(\.name) + ancestor.relationships.map(\.name)
                taken.formUnion(names.map { $0.lowercased() })
            }
        }
        let entityNames = model.entities.map(\.name)
        for property in entity.fetchedProperties {
            let element = ModelElement.fetchedProperty(entity: entity.name, name: property.name)
            if sourceMap.isUnreliable(element) { continue }
            if let (code, message) = Self.nameProblem(property.name, isEntity: false) {
                error(code, message, element)
            } else if !taken.insert(property.name.lowercased()).inserted {
                error(
                    .duplicateName,
                    "'\(property.name)' is already a property of \(entity.name) (or of an entity it inherits from)",
                    element)
            }
            if model.entity(named: property.destinationEntity) == nil {
                error(
                    .unknownEntity, NameSuggestion.unknown("entity", property.destinationEntity, expected: entityNames),
                    element, key: "entity")
            }
            do {
                _ = try FetchPredicate(format: property.predicate)
            } catch let problem as FetchPredicateError {
                error(.invalidValue, "the predicate does not parse: \(problem)", element, key: "predicate")
            } catch {
                self.error(.invalidValue, "the predicate does not parse: \(error)", element, key: "predicate")
            }
        }
    }
}
