import FerrySQLite

/// Finds a save plan's conflicts with the store, inside the save's write transaction.
struct ConflictDetector {
    /// An updated or deleted row whose stored version moved on (or that was deleted in the store).
    struct LockingFinding {
        var conflict: OptimisticLockingConflict
        var stored: StoredRow?
    }

    /// Objects of the save that share one constraint key, with each other or with a stored row.
    struct ConstraintFinding {
        var conflict: ConstraintConflict
        var stored: StoredRow?
    }

    let connection: Connection
    let schema: StoreSchema
    let layouts: ObjectLayouts
    let storeIdentifier: String

    /// The updated and deleted rows whose `_opt` is no longer the one they were read at.
    func lockingConflicts(in plan: SavePlan) throws -> [LockingFinding] {
        let checked = plan.updates + plan.deletes
        guard !checked.isEmpty else { return [] }
        var stored: [ObjectID: StoredRow] = [:]
        for (entity, rows) in Dictionary(grouping: checked, by: \.objectID.entityName) {
            for row in try readRows(rows.map(\.objectID.primaryKey), of: layouts[entity]) {
                stored[row.objectID] = row
            }
        }
        return checked.compactMap { row in
            let current = stored[row.objectID]
            guard current?.version != row.expectedVersion else { return nil }
            let layout = layouts[row.objectID.entity]
            return LockingFinding(
                conflict: OptimisticLockingConflict(
                    objectID: row.objectID, oldVersion: row.expectedVersion, newVersion: current?.version ?? 0,
                    objectSnapshot: layout.snapshot(row.attributes),
                    persistedSnapshot: current.map { layout.snapshot($0.attributes) }),
                stored: current)
        }
    }

    /// The constraint keys that inserted (or key-changing updated) rows share with each other or with stored rows.
    /// Keys with a nil part never collide (SQLite's UNIQUE lets NULLs repeat).
    func constraintConflicts(in plan: SavePlan) throws -> [ConstraintFinding] {
        var leaving: Set<ObjectID> = Set(plan.deletes.map(\.objectID))
        var groups: [GroupKey: [ObjectID]] = [:]
        var order: [GroupKey] = []
        var constraints: [Int: EntityLayout.Constraint] = [:]
        for row in plan.inserts + plan.updates {
            let layout = layouts[row.objectID.entity]
            for constraint in layout.constraints {
                let key = constraint.slots.map { row.attributes[$0] }
                guard !key.contains(where: { $0 == nil }) else { continue }
                if let committed = row.committed {
                    guard constraint.slots.contains(where: { committed.attributes[$0] != row.attributes[$0] }) else {
                        continue
                    }
                    // Its stored key is leaving, so a new row may take it.
                    leaving.insert(row.objectID)
                }
                constraints[constraint.identifier] = constraint
                let groupKey = GroupKey(constraint: constraint.identifier, key: key)
                if groups[groupKey] == nil { order.append(groupKey) }
                groups[groupKey, default: []].append(row.objectID)
            }
        }
        var stored: [GroupKey: ObjectID] = [:]
        for (identifier, keys) in Dictionary(grouping: order, by: \.constraint) {
            guard let constraint = constraints[identifier] else { continue }
            try findStoredRows(holding: keys.map(\.key), of: constraint, excluding: leaving) { key, id in
                stored[GroupKey(constraint: identifier, key: key)] = id
            }
        }
        var findings: [ConstraintFinding] = []
        for groupKey in order {
            guard let objects = groups[groupKey], let constraint = constraints[groupKey.constraint] else { continue }
            let storedRow = try stored[groupKey].flatMap { id in
                try readRows([id.primaryKey], of: layouts[id.entity]).first
            }
            guard objects.count > 1 || storedRow != nil else { continue }
            var values: [String: AttributeValue?] = [:]
            for (name, value) in zip(constraint.attributeNames, groupKey.key) {
                values.updateValue(value, forKey: name)
            }
            findings.append(
                ConstraintFinding(
                    conflict: ConstraintConflict(
                        entityName: constraint.declaringEntity, constraint: constraint.attributeNames,
                        constraintValues: values, databaseObjectID: storedRow?.objectID,
                        databaseSnapshot: storedRow.map { layouts[$0.objectID.entity].snapshot($0.attributes) },
                        conflictingObjectIDs: objects),
                    stored: storedRow))
        }
        return findings
    }

    private struct GroupKey: Hashable {
        /// ``EntityLayout/Constraint/identifier``.
        var constraint: Int
        var key: [AttributeValue?]
    }

    /// Reports the stored row holding each of `keys` under `constraint`, rows in `excluded` aside. A one-attribute
    /// constraint is looked up with `IN` lists, so a chunk of ten thousand keys costs a few dozen queries.
    private func findStoredRows(
        holding keys: [[AttributeValue?]], of constraint: EntityLayout.Constraint, excluding excluded: Set<ObjectID>,
        _ found: ([AttributeValue?], ObjectID) -> Void
    ) throws {
        let declaring = layouts[constraint.declaringEntity]
        let types = constraint.slots.map { declaring.attributes[$0].type }
        let columns = constraint.attributeNames.map(SQL.identifier)
        let select =
            "SELECT _pk, _ent, \(columns.joined(separator: ", ")) FROM \(SQL.identifier(declaring.table)) WHERE "
            + "_ent IN (\(constraint.entityIDs.map(String.init).joined(separator: ", "))) AND "
        let perQuery = columns.count == 1 ? EntityLayout.keysPerQuery : 1
        let decoder = FetchValueDecoder(
            entityName: declaring.name, blobFolder: BlobFolder(databasePath: connection.path))
        for start in stride(from: 0, to: keys.count, by: perQuery) {
            let batch = keys[start..<min(start + perQuery, keys.count)]
            let condition =
                columns.count == 1
                ? "\(columns[0]) IN (\(Array(repeating: "?", count: batch.count).joined(separator: ", ")))"
                : columns.map { "\($0) = ?" }.joined(separator: " AND ")
            let statement = try connection.cachedStatement(select + condition)
            defer { statement.reset() }
            var index = 1
            for key in batch {
                for (offset, value) in key.enumerated() {
                    try statement.bind(value, as: types[offset], at: index)
                    index += 1
                }
            }
            while try statement.step() {
                let entity = schema.entityNames[Int(statement.int64(at: 1))] ?? declaring.name
                let id = ObjectID(
                    entityName: entity, primaryKey: statement.int64(at: 0), storeIdentifier: storeIdentifier)
                guard !excluded.contains(id) else { continue }
                let key = try types.enumerated().map { offset, type in
                    try decoder.decode(
                        statement.value(at: 2 + offset), .attribute(type), key: constraint.attributeNames[offset])
                }
                found(key, id)
            }
        }
    }

    private func readRows(_ keys: [Int64], of layout: EntityLayout) throws -> [StoredRow] {
        try layout.readRows(keys, on: connection, schema: schema, storeIdentifier: storeIdentifier)
    }
}

extension EntityLayout {
    /// The stored attributes of `attributes` by name, for conflict reports.
    func snapshot(_ attributes: [AttributeValue?]) -> [String: AttributeValue?] {
        var snapshot: [String: AttributeValue?] = [:]
        for slot in storedAttributeSlots { snapshot.updateValue(attributes[slot], forKey: self.attributes[slot].name) }
        return snapshot
    }
}
