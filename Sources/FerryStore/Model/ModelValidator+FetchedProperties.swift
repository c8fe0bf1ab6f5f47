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
                let predicate = try FetchPredicate(format: property.predicate)
                for name in predicate.variableNames {
                    if let problem = fetchSourceProblem(name, from: entity.name) {
                        error(.invalidValue, problem, element, key: "predicate")
                    }
                }
            } catch let problem as FetchPredicateError {
                error(.invalidValue, "the predicate does not parse: \(problem)", element, key: "predicate")
            } catch {
                self.error(.invalidValue, "the predicate does not parse: \(error)", element, key: "predicate")
            }
        }
    }

    /// What is wrong with the variable `name` of a fetched property of `entity`, if anything: only `$FETCH_SOURCE`
    /// is bound, and a key path after it must go through to-one relationships to a property.
    private func fetchSourceProblem(_ name: String, from entity: String) -> String? {
        var components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard components.removeFirst() == "FETCH_SOURCE" else {
            return "$\(name) is never bound: a fetched property's predicate can use only $FETCH_SOURCE"
        }
        var current = entity
        for (index, component) in components.enumerated() {
            let isLast = index == components.count - 1
            if let relationship = model.allRelationships(of: current).first(where: { $0.name == component }) {
                if relationship.isToMany && !isLast {
                    return "$\(name): '\(component)' of \(current) is a to-many relationship, so the key path "
                        + "cannot go on"
                }
                current = relationship.destinationEntity
            } else if model.allAttributes(of: current).contains(where: { $0.name == component }), isLast {
                return nil
            } else {
                let what = isLast ? "property" : "to-one relationship"
                return "$\(name): \(current) has no \(what) '\(component)'"
            }
        }
        return nil
    }
}
