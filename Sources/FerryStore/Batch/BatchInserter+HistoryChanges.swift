import FerrySQLite

extension BatchInserter {
    /// The attributes packed row `row` would change in the stored row of its key, as persistent history lists an
    /// update's properties; `nil` when no row has its key. Asked only when the store records history, before an
    /// upsert writes the row: history then names the attributes that changed, not every attribute the row gives.
    ///
    /// One probe by key (`SELECT "a" IS NOT ?1, "b" IS NOT ?2, … WHERE <key> = …`) on the index page the upsert
    /// walks next; a shape whose rows do not give a uniqueness constraint whole is not probed (`nil`). With several
    /// constraints given, the probe finds the stored row by any of them; when two stored rows each hold one of the
    /// row's keys, which one the upsert meets is SQLite's choice, and history lists every given attribute (`nil`).
    mutating func changedProperties(
        _ rows: PackedRows, row: Int, present: [Int], shape: Shape, storage: [StoredValueCodec.StorageClass]
    ) throws -> String? {
        guard let probe = try changesProbe(for: shape) else { return nil }
        let statement = probe.shape.statement
        defer { statement.reset() }
        try bindPacked(rows, row: row, present: present, in: probe.shape, storage: storage)
        guard try statement.step() else { return nil }
        var changed: [String] = []
        for (column, name) in probe.compared.enumerated() where statement.int64(at: column) != 0 {
            changed.append(name)
        }
        guard try !statement.step() else { return nil }
        return HistoryRecorder.propertyList(changed)
    }

    /// The probe that compares a row of `shape` with the stored row of its key, and the attributes it compares (its
    /// result columns, in order). Prepared on first use; `nil` without a uniqueness constraint the shape gives whole.
    private mutating func changesProbe(for shape: Shape) throws -> (shape: Shape, compared: [String])? {
        if let probe = changesProbes[shape.names] { return probe }
        let keys = constraints(givenBy: shape.names)
        guard !keys.isEmpty else { return nil }
        let parameters = shape.names.enumerated()
        let matches = keys.map { key in
            parameters.filter { key.contains($0.element) }
                .map { SQL.identifier($0.element) + " = ?\($0.offset + 1)" }.joined(separator: " AND ")
        }
        // The key the row is matched by holds the row's values; with several, any given attribute may differ.
        let compared = parameters.filter { keys.count > 1 || !keys[0].contains($0.element) }
        // A row that gives only its key changes nothing; its probe still tells whether the key is stored.
        let results =
            compared.isEmpty ? ["0"] : compared.map { SQL.identifier($0.element) + " IS NOT ?\($0.offset + 1)" }
        let sql =
            "SELECT \(results.joined(separator: ", ")) FROM \(SQL.identifier(mapping.table)) "
            + "WHERE ((\(matches.joined(separator: ") OR (")))) \(hierarchyCondition) LIMIT 2"
        let probe = try comparisonShape(sql, like: shape)
        let found = (probe, compared.map(\.element))
        changesProbes[shape.names] = found
        return found
    }
}
