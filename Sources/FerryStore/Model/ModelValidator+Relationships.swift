/// Relationships: destinations, inverses that point back, counts, and the join tables they may need.
extension ModelValidator {
    mutating func checkRelationship(_ relationship: RelationshipDescription, of entity: EntityDescription) {
        let element = ModelElement.relationship(entity: entity.name, name: relationship.name)
        guard !sourceMap.isUnreliable(element) else { return }
        if relationship.isOrdered && !relationship.isToMany {
            error(.invalidRule, "'ordered' applies to to-many relationships only", element, key: "ordered")
        }
        checkCounts(of: relationship, element)
        guard model.entity(named: relationship.destinationEntity) != nil else {
            let names = model.entities.map(\.name)
            let message = NameSuggestion.unknown(
                "destination entity", relationship.destinationEntity,
                expected: names)
            error(.unknownEntity, message, element, key: "to")
            return
        }
        checkInverse(of: relationship, in: entity, element)
        checkJoinTableName(of: relationship, in: entity, element)
    }

    private mutating func checkCounts(of relationship: RelationshipDescription, _ element: ModelElement) {
        for (key, value) in [("minCount", relationship.minCount), ("maxCount", relationship.maxCount)] {
            if value < 0 {
                error(.invalidRule, "\(key) must be 0 or more; found \(value)", element, key: key)
            } else if value > 1 && !relationship.isToMany {
                error(.invalidRule, "\(key) \(value) is impossible for a to-one relationship", element, key: key)
            }
        }
        if relationship.maxCount > 0 && relationship.minCount > relationship.maxCount {
            error(
                .invalidRule, "minCount \(relationship.minCount) is greater than maxCount \(relationship.maxCount)",
                element, key: "minCount")
        }
    }

    /// The inverse exists on the destination, points back at this entity (or an ancestor), and names this
    /// relationship back. A missing inverse is only a warning, as in Core Data.
    private mutating func checkInverse(
        of relationship: RelationshipDescription, in entity: EntityDescription, _ element: ModelElement
    ) {
        let destination = relationship.destinationEntity
        let ownAncestry = model.ancestry(of: entity.name).map(\.name)
        guard let inverseName = relationship.inverseName else {
            // Someone on the other side may name this relationship as its inverse: then say what to write.
            let naming = model.allRelationships(of: destination).first {
                $0.inverseName == relationship.name && ownAncestry.contains($0.destinationEntity)
            }
            if let naming {
                warn(
                    .oneSidedInverse,
                    "\(destination).\(naming.name) names it as its inverse; add 'inverse: \(naming.name)' here too",
                    element)
            } else {
                warn(
                    .missingInverse,
                    "no inverse; Ferry cannot keep the other side up to date, and deleting an object may leave "
                        + "references to it", element)
            }
            return
        }
        let candidates = model.allRelationships(of: destination)
        guard let inverse = candidates.first(where: { $0.name == inverseName }) else {
            if model.allAttributes(of: destination).contains(where: { $0.name == inverseName }) {
                error(
                    .unknownInverse, "inverse '\(inverseName)' is an attribute of \(destination), not a relationship",
                    element, key: "inverse")
            } else {
                var message = "inverse '\(inverseName)' is not a relationship of \(destination)"
                if let suggestion = NameSuggestion.suggestion(for: inverseName, among: candidates.map(\.name)) {
                    message += "; did you mean '\(suggestion)'?"
                } else {
                    let names = candidates.map(\.name).joined(separator: ", ")
                    message += candidates.isEmpty ? ", which has none" : "; it has \(names)"
                }
                error(.unknownInverse, message, element, key: "inverse")
            }
            return
        }
        let owner =
            model.ancestry(of: destination).last { $0.relationship(named: inverseName) != nil }?.name
            ?? destination
        guard !sourceMap.isUnreliable(.relationship(entity: owner, name: inverseName)) else { return }
        if !ownAncestry.contains(inverse.destinationEntity) {
            error(
                .inverseMismatch,
                "inverse \(owner).\(inverseName) points to \(inverse.destinationEntity), not back to \(entity.name)",
                element, key: "inverse")
        } else if let back = inverse.inverseName, back != relationship.name,
            isConsistentInverse(back, of: inverse, ownedBy: owner)
        {
            error(
                .inverseMismatch,
                "inverse \(owner).\(inverseName) names '\(back)' as its inverse, not '\(relationship.name)'",
                element, key: "inverse")
        }
    }

    /// Whether `inverse`'s own inverse, `back`, exists and points at `inverse`'s owner: otherwise `inverse` is itself
    /// in error, reported on its own line, and the mismatch seen from this side would only repeat it.
    private func isConsistentInverse(_ back: String, of inverse: RelationshipDescription, ownedBy owner: String)
        -> Bool
    {
        guard
            let backRelationship = model.allRelationships(of: inverse.destinationEntity).first(where: {
                $0.name == back
            })
        else { return false }
        return model.ancestry(of: owner).contains { $0.name == backRelationship.destinationEntity }
    }

    /// A many-to-many (or inverse-less to-many) relationship gets a join table `<Entity>_<relationship>`
    /// (see ``StoreSchema``); its name must not clash with a table or fall in a reserved namespace.
    private mutating func checkJoinTableName(
        of relationship: RelationshipDescription, in entity: EntityDescription, _ element: ModelElement
    ) {
        guard relationship.isToMany, StoreSchema.needsJoinTable(relationship, of: entity.name, in: model) else {
            return
        }
        let table = "\(entity.name)_\(relationship.name)"
        let lowercased = table.lowercased()
        if let clash = model.entities.first(where: { $0.name.lowercased() == lowercased }) {
            error(.duplicateName, "its join table \(table) would clash with entity \(clash.name)", element)
        } else if lowercased.hasPrefix("ferry_") || lowercased.hasPrefix("sqlite_") {
            error(
                .reservedName, "its join table \(table) would fall among the reserved names of Ferry or SQLite",
                element)
        }
    }
}
