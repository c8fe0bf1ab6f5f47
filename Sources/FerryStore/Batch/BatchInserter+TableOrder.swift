import FerrySQLite

extension BatchInserter {
    /// Whether an upsert of packed rows of `shape` may run in two passes (see ``upsertInTableOrder(_:full:)``):
    /// one uniqueness constraint, given by the rows; no value that may go to a blob file (a file is written when
    /// its value is bound, and the two passes bind some rows twice); and no object IDs to list in the rows' order.
    func upsertsInTableOrder(_ shape: Shape) -> Bool {
        action == .update && shape.keyProbe != nil && !shape.external.contains(true) && !collectsObjectIDs
    }

    /// An upsert of packed rows in two passes, each in the order that walks its B-tree once.
    ///
    /// The rows come in key order (the importer sorts each chunk). The first pass looks every key up in that order,
    /// walking the uniqueness index from one end to the other, and inserts each row whose key is not stored yet
    /// right away, while its index page is at hand. The rows whose key is stored are then updated by primary key,
    /// in ascending order, so the table is also walked once instead of at one random page per row. The result is
    /// the one-pass upsert's: only the given attributes change, and only when one differs (`_opt` goes up by one); a
    /// key given twice ends with the later row's values (an update keeps the rows' order among equal keys); the
    /// counts, history and changes are the same.
    mutating func upsertInTableOrder(_ rows: PackedRows, full: Shape) throws {
        let storage = full.types.map(StoredValueCodec.StorageClass.init)
        var present: [Int] = []
        var stored: [(primaryKey: Int64, ent: Int, row: Int)] = []
        for row in 0..<rows.count {
            rowNumber = row + 1
            let shape = try packedShape(of: rows, row: row, full: full, present: &present)
            if let probe = shape.keyProbe {
                if let (primaryKey, ent) = try storedRow(of: rows, row: row, present: present, probe: probe) {
                    stored.append((primaryKey, ent, row))
                    continue
                }
                if refusedRows != nil, let missing = shape.omittedMandatory.first {
                    refusedRows?.append(RefusedRow(row: row, reason: Self.refusal(missing, of: mapping.entity)))
                    continue
                }
            }
            // A new key (or a row without the whole key, which cannot be stored already): a plain upsert inserts it.
            try write(packed: rows, row: row, present: present, shape: shape, storage: storage)
        }
        // A key given twice is updated in the rows' order, so its later row wins.
        stored.sort { ($0.primaryKey, $0.row) < ($1.primaryKey, $1.row) }
        let fullUpdate = try updateShape(for: full)
        for update in stored {
            rowNumber = update.row + 1
            let shape = try packedShape(of: rows, row: update.row, full: full, present: &present)
            // Rows that give every column (nearly all) share one UPDATE, found once rather than by name per row.
            let byKey = present.count == rows.columns.count ? fullUpdate : try updateShape(for: shape)
            if history != nil {
                // History names only what changes; a row that changes nothing is not written at all.
                pendingHistoryProperties = try changedProperties(
                    rows, row: update.row, present: present, shape: shape, storage: storage)
                if pendingHistoryProperties == "" { continue }
            }
            defer { pendingHistoryProperties = nil }
            let statement = byKey.statement
            defer { statement.reset() }
            try bindPacked(rows, row: update.row, present: present, in: byKey, storage: storage)
            try statement.bind(update.primaryKey, at: shape.names.count + 1)
            _ = try statement.step()
            // No change: the given attributes already held the given values.
            guard connection.changes == 1 else { continue }
            try count(primaryKey: update.primaryKey, version: 2, ent: update.ent, shape)
        }
    }

    /// The primary key and `_ent` of the stored row with packed row `row`'s key, or `nil` when none has it.
    private func storedRow(of rows: PackedRows, row: Int, present: [Int], probe: Shape.KeyProbe) throws
        -> (primaryKey: Int64, ent: Int)?
    {
        let statement = probe.statement
        defer { statement.reset() }
        try Self.bindKey(of: rows, row: row, present: present, at: probe.offsets, to: statement)
        guard try statement.step() else { return nil }
        return (statement.int64(at: 0), probe.entityID ?? Int(statement.int64(at: 1)))
    }

    /// `shape` with, as its statement, `UPDATE "T" SET <given, but the key> = ?i, "_opt" = "_opt" + 1 WHERE
    /// "_pk" = ?n+1 AND (<one differs>)`, whose parameters 1…n are the shape's given attributes in its order (so a
    /// row binds as for its INSERT). Prepared on first use.
    private mutating func updateShape(for shape: Shape) throws -> Shape {
        if let update = updateShapes[shape.names] { return update }
        let key = conflictTargets.first?.columns ?? []
        let updated = shape.names.enumerated().filter { !key.contains($0.element) }
        let version = SQL.identifier("_opt")
        let assignments =
            updated.map { SQL.identifier($0.element) + " = ?\($0.offset + 1)" } + ["\(version) = \(version) + 1"]
        let changed = updated.map { SQL.identifier($0.element) + " IS NOT ?\($0.offset + 1)" }
        // A row that gives only its key has nothing to change: the condition is never true.
        let condition = changed.isEmpty ? "0" : changed.joined(separator: " OR ")
        let statement = try connection.prepare(
            "UPDATE \(SQL.identifier(mapping.table)) SET \(assignments.joined(separator: ", ")) "
                + "WHERE \(SQL.identifier("_pk")) = ?\(shape.names.count + 1) AND (\(condition))")
        let update = Shape(
            statement: statement, names: shape.names, types: shape.types, optional: shape.optional,
            external: shape.external, omittedMandatory: [], primaryKeyParameter: nil,
            historyProperties: shape.historyProperties, keyProbe: nil)
        updateShapes[shape.names] = update
        return update
    }
}
