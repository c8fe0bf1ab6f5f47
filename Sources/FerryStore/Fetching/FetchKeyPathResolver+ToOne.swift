import FerrySQLite

extension FetchQuery {
    /// A dictionary column holding a to-one relationship: the destination's primary key, turned into its object ID.
    struct ObjectColumn: Hashable {
        /// The relationship's destination entity: the object's entity when the destination has no sub-entities.
        var destination: String
        /// The index of the selected column holding the destination row's `_ent`, when it may be a sub-entity.
        var entityIndex: Int?
    }
}

extension FetchKeyPathResolver {
    /// A property of a dictionary fetch or a group: an attribute's column, or a to-one relationship's foreign key.
    struct Property {
        /// The SQL of the value.
        var column: String
        var decoding: FetchQuery.Decoding
        /// How a predicate compares the value (a `havingPredicate`).
        var kind: PredicateOperand.ValueKind
        /// For a to-one relationship, its destination entity.
        var destination: String?
        /// For a to-one relationship whose destination has sub-entities, the joined destination's `_ent` column.
        var entityColumn: String?
    }

    /// The column of `keyPath`, which may end on a to-one relationship (Core Data's `propertiesToFetch` and
    /// `propertiesToGroupBy` take relationships, returned as object IDs); otherwise as ``resolve(_:as:)``.
    ///
    /// - Throws: as ``resolve(_:as:)``.
    mutating func resolveProperty(_ keyPath: String, as role: String) throws -> Property {
        if let toOne = toOne(keyPath) { return toOne }
        let resolved = try resolve(keyPath, as: role)
        let type = resolved.attribute.type
        return Property(column: resolved.column, decoding: .attribute(type), kind: .attribute(type))
    }

    /// The foreign key column of a key path made only of to-one relationships, joining the tables before its last
    /// one (and the last one's, when its rows may be of sub-entities); nil for any other key path.
    private mutating func toOne(_ keyPath: String) -> Property? {
        let model = schema.model
        var current = entity
        var alias = rootAlias
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (index, name) in components.enumerated() {
            guard let relationship = model.allRelationships(of: current).first(where: { $0.name == name }),
                !relationship.isToMany
            else { return nil }
            let foreignKey = schema.mapping(for: current)?.foreignKeys[name]?.column ?? name
            let destination = relationship.destinationEntity
            guard index == components.count - 1 else {
                alias = join(
                    components[...index].joined(separator: "."), from: alias, foreignKey: foreignKey, to: destination)
                current = destination
                continue
            }
            var entityColumn: String?
            if let mapping = schema.mapping(for: destination), mapping.hierarchyIDs.count > 1 {
                let joined = join(keyPath, from: alias, foreignKey: foreignKey, to: destination)
                entityColumn = Self.column(joined, "_ent")
            }
            return Property(
                column: Self.column(alias, foreignKey), decoding: .integer, kind: .object(destination),
                destination: destination, entityColumn: entityColumn)
        }
        return nil
    }
}

extension FetchExecutor {
    /// The object ID a to-one column of a dictionary row names, as its URI (the form a predicate takes it back in);
    /// nil when the relationship is empty.
    func objectValue(_ row: Row, at index: Int, _ column: FetchQuery.ObjectColumn) throws -> AttributeValue? {
        guard case .integer(let key) = row[index] else { return nil }
        var entity = column.destination
        if let entityIndex = column.entityIndex {
            guard let number = row[entityIndex].integer, let name = schema.entityNames[Int(number)] else {
                throw FetchRequestError(
                    code: .undecodableValue,
                    message: "a \(column.destination) row referred to by a fetched relationship has no valid _ent",
                    entityName: column.destination)
            }
            entity = name
        }
        return .uri(ObjectID(entityName: entity, primaryKey: key, storeIdentifier: storeIdentifier).uriRepresentation)
    }
}
