import FerrySQLite

/// Finds a save plan's conflicts with the store, inside the save's write transaction (REFERENCE.md §1.2–§1.4).
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
            let layout = layouts[row.objectID.entityName]
            return LockingFinding(
                conflict: OptimisticLockingConflict(
                    objectID: row.objectID, oldVersion: row.expectedVersion, newVersion: current?.version ?? 0,
                    objectSnapshot: layout.snapshot(row.attributes),
                    persistedSnapshot: current.map { layout.snapshot($0.attributes) }),
                stored: current)
        }
    }

    /// The constraint keys that inserted (or key-changing updated) rows share with each other or with stored rows.
    /// Keys with a nil part never collide (SQLite's UNIQUE lets NULLs repeat, REFERENCE.md §2.4).
    func constraintConflicts(in plan: SavePlan) throws -> [ConstraintFinding] {
        var deleting: Set<ObjectID> = Set(plan.deletes.map(\.objectID))
        var groups: [GroupKey: [ObjectID]] = [:]
        var order: [GroupKey] = []
        for row in plan.inserts + plan.updates {
            let layout = layouts[row.objectID.entityName]
            for constraint in layout.constraints {
                let key = constraint.slots.map { row.attributes[$0] }
                guard !key.contains(where: { $0 == nil }) else { continue }
                if let committed = row.committed {
                    guard constraint.slots.contains(where: { committed.attributes[$0] != row.attributes[$0] }) else {
                        continue
                    }
                    // Its stored key is leaving, so a new row may take it.
                    deleting.insert(row.objectID)
                }
                let groupKey = GroupKey(constraint: constraint, key: key)
                if groups[groupKey] == nil { order.append(groupKey) }
                groups[groupKey, default: []].append(row.objectID)
            }
        }
        var findings: [ConstraintFinding] = []
        for groupKey in order {
            guard let objects = groups[groupKey] else { continue }
            let stored = try storedRow(holding: groupKey, excluding: deleting)
            guard objects.count > 1 || stored != nil else { continue }
            let names = groupKey.constraint.attributeNames
            var values: [String: AttributeValue?] = [:]
            for (name, value) in zip(names, groupKey.key) { values.updateValue(value, forKey: name) }
            findings.append(
                ConstraintFinding(
                    conflict: ConstraintConflict(
                        entityName: groupKey.constraint.declaringEntity, constraint: names, constraintValues: values,
                        databaseObjectID: stored?.objectID,
                        databaseSnapshot: stored.map { layouts[$0.objectID.entityName].snapshot($0.attributes) },
                        conflictingObjectIDs: objects),
                    stored: stored))
        }
        return findings
    }

    private struct GroupKey: Hashable {
        var constraint: EntityLayout.Constraint
        var key: [AttributeValue?]
    }

    /// The stored row with `group`'s key, other than the rows in `excluded`.
    private func storedRow(holding group: GroupKey, excluding excluded: Set<ObjectID>) throws -> StoredRow? {
        let declaring = layouts[group.constraint.declaringEntity]
        let conditions = group.constraint.attributeNames.map { SQL.identifier($0) + " = ?" }
        let entities = group.constraint.entityIDs.map(String.init).joined(separator: ", ")
        let statement = try connection.cachedStatement(
            "SELECT _pk, _ent FROM \(SQL.identifier(declaring.table)) WHERE "
                + conditions.joined(separator: " AND ") + " AND _ent IN (\(entities))")
        defer { statement.reset() }
        for (offset, slot) in group.constraint.slots.enumerated() {
            try statement.bind(group.key[offset], as: declaring.attributes[slot].type, at: offset + 1)
        }
        var found: ObjectID?
        while try statement.step() {
            let entity = schema.entityNames[Int(statement.int64(at: 1))] ?? declaring.name
            let id = ObjectID(entityName: entity, primaryKey: statement.int64(at: 0), storeIdentifier: storeIdentifier)
            if !excluded.contains(id) {
                found = id
                break
            }
        }
        guard let found else { return nil }
        return try readRows([found.primaryKey], of: layouts[found.entityName]).first
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
