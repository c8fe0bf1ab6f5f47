import FerrySQLite

/// Writes a resolved save plan inside the save's transaction: replacements and deletions first (so their keys are
/// free), then updates, inserts, join-table rows and ordered positions.
struct SaveWriter {
    let connection: Connection
    let schema: StoreSchema
    let layouts: ObjectLayouts
    let primaryKeys: PrimaryKeyAllocator
    let storeIdentifier: String
    /// Who the save's persistent-history transaction is attributed to; `nil` when the store records no history.
    var history: HistoryAttribution? = nil
    /// Writes the files of large values of attributes that allow external storage; `nil` when none can go to a file.
    var blobs: BlobWriter? = nil

    func write(_ plan: SavePlan, outcome: inout SaveOutcome) throws {
        let assigned = try assignPrimaryKeys(plan.inserts, outcome: &outcome)
        if let history {
            // Before the deletions, so the deleted rows' tombstone values can still be read.
            let recorder = try HistoryRecorder(connection: connection, schema: schema, attribution: history)
            try recorder.record(plan, outcome: outcome, layouts: layouts)
            outcome.historyToken = try recorder.finish()
        }
        for replacement in plan.replacements { try replace(replacement, outcome: outcome) }
        for row in plan.deletes { try delete(row) }
        outcome.deleted = plan.deletes.map(\.objectID) + plan.replacements.map(\.stored)
        for row in plan.updates { try update(row, outcome: &outcome) }
        // Rows of one entity come together: its layout and INSERT are looked up once per run of rows, not per row
        // (the statement cache is keyed by the SQL text, which would be hashed for every row).
        // Without replacements each row's final ID is the one just assigned (or its own): no lookup per row.
        let assignedAreFinal = outcome.replacedIDs.isEmpty
        var current: (entity: ObjectIDName, layout: EntityLayout, statement: Statement)?
        // By index: a row is read in place, not copied (with a retain of each of its arrays) for each insert.
        for index in plan.inserts.indices {
            let objectID = plan.inserts[index].objectID
            if current?.entity != objectID.entity {
                let layout = layouts[objectID.entity]
                current = (objectID.entity, layout, try connection.cachedStatement(layout.insertSQL))
            }
            let id = assignedAreFinal ? assigned[index] ?? objectID : outcome.finalID(of: objectID)
            if let current {
                try insert(
                    plan.inserts[index], as: id, layout: current.layout, statement: current.statement,
                    outcome: &outcome)
            }
        }
        for change in plan.joinChanges { try write(change, outcome: outcome) }
        for ordering in plan.orderings { try write(ordering, outcome: outcome) }
    }

    /// Gives every inserted object with a temporary ID its primary key, one reservation per table; returns each
    /// row's permanent ID (nil for a row whose ID is permanent already).
    private func assignPrimaryKeys(_ rows: [SavePlan.Row], outcome: inout SaveOutcome) throws -> [ObjectID?] {
        outcome.inserted.reserveCapacity(rows.count)
        // Each table's temporary rows, counted, then given consecutive keys in row order. Rows of one entity come
        // together, so the table is looked up once per run of rows.
        var tables: [(name: String, rows: Int, next: Int64)] = []
        var tableOfRow: [Int] = []
        tableOfRow.reserveCapacity(rows.count)
        var current: (entity: ObjectIDName, table: Int)?
        for index in rows.indices where rows[index].objectID.isTemporaryID {
            let entity = rows[index].objectID.entity
            if current?.entity != entity {
                let table = layouts[entity].table
                if let found = tables.firstIndex(where: { $0.name == table }) {
                    current = (entity, found)
                } else {
                    tables.append((table, 0, 0))
                    current = (entity, tables.count - 1)
                }
            }
            guard let current else { continue }
            tables[current.table].rows += 1
            tableOfRow.append(current.table)
        }
        for index in tables.indices {
            tables[index].next = try primaryKeys.reserve(tables[index].rows, in: tables[index].name, on: connection)
        }
        outcome.permanentIDs.reserveCapacity(tableOfRow.count)
        var assigned: [ObjectID?] = []
        assigned.reserveCapacity(rows.count)
        var position = 0
        let store = ObjectIDName(storeIdentifier)
        for index in rows.indices {
            let temporary = rows[index].objectID
            guard temporary.isTemporaryID else {
                assigned.append(nil)
                continue
            }
            let table = tableOfRow[position]
            position += 1
            let id = ObjectID(entity: temporary.entity, primaryKey: tables[table].next, store: store)
            outcome.permanentIDs[temporary] = id
            assigned.append(id)
            tables[table].next += 1
        }
        return assigned
    }

    private func run(_ sql: String, _ values: [SQLiteValue]) throws {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        _ = try statement.step()
    }

    // MARK: Deleting

    private func delete(_ row: SavePlan.Row) throws {
        let layout = layouts[row.objectID.entity]
        let key = SQLiteValue.integer(row.objectID.primaryKey)
        try run("DELETE FROM \(SQL.identifier(layout.table)) WHERE _pk = ?", [key])
        for join in schema.joinTables {
            if sharesTable(join.sourceEntity, layout.table) {
                try run("DELETE FROM \(SQL.identifier(join.name)) WHERE source = ?", [key])
            }
            if sharesTable(join.destinationEntity, layout.table) {
                try run("DELETE FROM \(SQL.identifier(join.name)) WHERE destination = ?", [key])
            }
        }
    }

    /// Moves every reference to the stored row onto its replacement, then deletes the stored row.
    private func replace(_ replacement: SavePlan.Replacement, outcome: SaveOutcome) throws {
        let old = SQLiteValue.integer(replacement.stored.primaryKey)
        let new = SQLiteValue.integer(outcome.finalID(of: replacement.replacement).primaryKey)
        let table = layouts[replacement.stored.entity].table
        for layout in layouts.byEntity.values where layout.entity.parentEntity == nil {
            for key in Set(layouts.byEntity.values.filter { $0.table == layout.table }.flatMap(\.foreignKeys))
            where key.destinationTable == table {
                try run(
                    "UPDATE \(SQL.identifier(layout.table)) SET \(SQL.identifier(key.column)) = ? "
                        + "WHERE \(SQL.identifier(key.column)) = ?", [new, old])
            }
        }
        for join in schema.joinTables {
            if sharesTable(join.sourceEntity, table) {
                try run("UPDATE OR IGNORE \(SQL.identifier(join.name)) SET source = ? WHERE source = ?", [new, old])
            }
            if sharesTable(join.destinationEntity, table) {
                try run(
                    "UPDATE OR IGNORE \(SQL.identifier(join.name)) SET destination = ? WHERE destination = ?",
                    [new, old])
            }
        }
        try delete(
            SavePlan.Row(
                objectID: replacement.stored, attributes: [], toOne: [], committed: nil, changedAttributes: [],
                changedToOne: [], expectedVersion: 0, insertionIndex: 0))
    }

    private func sharesTable(_ entity: String, _ table: String) -> Bool {
        schema.model.rootEntity(of: entity) == table
    }

    // MARK: Updating and inserting

    private func update(_ row: SavePlan.Row, outcome: inout SaveOutcome) throws {
        let layout = layouts[row.objectID.entity]
        var assignments: [String] = []
        for slot in row.changedAttributes { assignments.append(SQL.identifier(layout.attributes[slot].name) + " = ?") }
        for slot in row.changedToOne {
            assignments.append(SQL.identifier(layout.foreignKeys[slot].column) + " = ?")
            if let column = layout.foreignKeys[slot].entityColumn {
                assignments.append(SQL.identifier(column) + " = ?")
            }
        }
        assignments.append("_opt = _opt + 1")
        let statement = try connection.cachedStatement(
            "UPDATE \(SQL.identifier(layout.table)) SET \(assignments.joined(separator: ", ")) "
                + "WHERE _pk = ? AND _opt = ?")
        defer { statement.reset() }
        var index = 1
        for slot in row.changedAttributes {
            try bindAttribute(row.attributes[slot], layout, slot, statement, index)
            index += 1
        }
        for slot in row.changedToOne {
            try bindReference(row.toOne[slot], layout.foreignKeys[slot], statement, &index, outcome)
        }
        try statement.bind(row.objectID.primaryKey, at: index)
        try statement.bind(row.expectedVersion, at: index + 1)
        _ = try statement.step()
        guard connection.changes == 1 else {
            // The detector read the row in this same transaction, so only a foreign writer gets here.
            throw SaveConflictError(
                lockingConflicts: [
                    OptimisticLockingConflict(
                        objectID: row.objectID, oldVersion: row.expectedVersion, newVersion: 0,
                        objectSnapshot: layout.snapshot(row.attributes), persistedSnapshot: nil)
                ], constraintConflicts: [])
        }
        outcome.versions[row.objectID] = row.expectedVersion + 1
        outcome.updated.append(row.objectID)
    }

    /// Inserts `row` as `id` (its final ID) with `statement`, its layout's prepared INSERT.
    private func insert(
        _ row: SavePlan.Row, as id: ObjectID, layout: EntityLayout, statement: Statement, outcome: inout SaveOutcome
    ) throws {
        defer { statement.reset() }
        try statement.bind(id.primaryKey, at: 1)
        try statement.bind(layout.mapping.entityID, at: 2)
        var index = 3
        for slot in layout.writableAttributeSlots {
            try bindAttribute(row.attributes[slot], layout, slot, statement, index)
            index += 1
        }
        for slot in layout.toOne.indices {
            try bindReference(row.toOne[slot], layout.foreignKeys[slot], statement, &index, outcome)
        }
        _ = try statement.step()
        // Its version is 1 (the INSERT writes `_opt` = 1): listed in `inserted`, not hashed into `versions`.
        outcome.inserted.append(id)
    }

    /// Binds the value of attribute `slot`: a large value of an attribute that allows external storage as the
    /// reference to its file (written now, inside the transaction), anything else as stored inline.
    private func bindAttribute(
        _ value: AttributeValue?, _ layout: EntityLayout, _ slot: Int, _ statement: Statement, _ index: Int
    ) throws {
        if let blobs, layout.attributes[slot].allowsExternalStorage {
            try blobs.bind(value, as: layout.attributes[slot], to: statement, at: index)
        } else {
            try statement.bind(value, as: layout.attributes[slot].type, at: index)
        }
    }

    /// Binds a to-one reference (its key, and its entity when the column pair needs it).
    private func bindReference(
        _ reference: ObjectID?, _ key: StoreSchema.ForeignKey, _ statement: Statement, _ index: inout Int,
        _ outcome: SaveOutcome
    ) throws {
        let target = reference.map(outcome.finalID)
        if let target { try statement.bind(target.primaryKey, at: index) } else { try statement.bindNull(at: index) }
        index += 1
        guard key.entityColumn != nil else { return }
        if let target, let entityID = schema.mapping(for: target.entityName)?.entityID {
            try statement.bind(entityID, at: index)
        } else {
            try statement.bindNull(at: index)
        }
        index += 1
    }

    // MARK: Relationships kept outside the rows

    private func write(_ change: JoinChange, outcome: SaveOutcome) throws {
        let source = SQLiteValue.integer(outcome.finalID(of: change.source).primaryKey)
        let destination = SQLiteValue.integer(outcome.finalID(of: change.destination).primaryKey)
        let table = SQL.identifier(change.table)
        guard change.isAddition else {
            return try run("DELETE FROM \(table) WHERE source = ? AND destination = ?", [source, destination])
        }
        let isOrdered = schema.joinTables.first { $0.name == change.table }?.isOrdered ?? false
        if isOrdered {
            try run(
                "INSERT OR IGNORE INTO \(table) (source, destination, position) VALUES (?, ?, "
                    + "(SELECT coalesce(max(position), 0) + 1 FROM \(table) WHERE source = ?))",
                [source, destination, source])
        } else {
            try run("INSERT OR IGNORE INTO \(table) (source, destination) VALUES (?, ?)", [source, destination])
        }
    }

    /// Rewrites an ordered to-many's positions, 1-based and dense (Core Data leaves gaps or renumbering open).
    private func write(_ ordering: SavePlan.Ordering, outcome: SaveOutcome) throws {
        let owner = SQLiteValue.integer(outcome.finalID(of: ordering.owner).primaryKey)
        for (offset, member) in ordering.members.enumerated() {
            let key = SQLiteValue.integer(outcome.finalID(of: member).primaryKey)
            let position = SQLiteValue.integer(Int64(offset + 1))
            if let column = ordering.orderColumn {
                try run(
                    "UPDATE \(SQL.identifier(ordering.table)) SET \(SQL.identifier(column)) = ? WHERE _pk = ?",
                    [position, key])
            } else {
                try run(
                    "UPDATE \(SQL.identifier(ordering.table)) SET position = ? WHERE source = ? AND destination = ?",
                    [position, owner, key])
            }
        }
    }
}
