import FerrySQLite

extension BatchInserter {
    /// Counts packed row `row`, which the INSERT ignored (its key is stored), in ``keptCount`` when the stored row
    /// holds a different value in an attribute the row gives: the stored row was kept over the row's values,
    /// rather than already holding them.
    ///
    /// One probe by the row's key (`SELECT 1 … WHERE <key> = … AND (<a> IS NOT ? OR …)`), on the index page the
    /// INSERT has just walked; a row that gives no uniqueness constraint whole is not probed.
    mutating func countIfKept(
        _ rows: PackedRows, row: Int, present: [Int], shape: Shape, storage: [PackedStorage]
    ) throws {
        guard let probe = try keptProbe(for: shape) else { return }
        let statement = probe.statement
        defer { statement.reset() }
        try bindPacked(rows, row: row, present: present, in: probe, storage: storage)
        if try statement.step() { keptCount += 1 }
    }

    /// `shape` with, as its statement, the probe that finds the stored row of a row's key when it differs from the
    /// row; its parameters 1…n are the shape's given attributes in its order (so a row binds as for its INSERT).
    /// `nil` when the shape gives no uniqueness constraint whole, or only its key. Prepared on first use.
    private mutating func keptProbe(for shape: Shape) throws -> Shape? {
        if let probe = keptProbes[shape.names] { return probe }
        let constraints = schema.model.ancestry(of: mapping.entity).flatMap(\.uniquenessConstraints)
        guard let key = constraints.first(where: { $0.allSatisfy(shape.names.contains) }) else { return nil }
        let parameters = shape.names.enumerated()
        let matches = parameters.filter { key.contains($0.element) }
            .map { SQL.identifier($0.element) + " = ?\($0.offset + 1)" }
        // A value that may be in a blob file is stored as the file's reference: it is not compared (its parameter
        // is still named, so every parameter binds).
        let compared = parameters.filter { !key.contains($0.element) && !shape.external[$0.offset] }
        let uncompared = parameters.filter { !key.contains($0.element) && shape.external[$0.offset] }
        let differs = compared.map { SQL.identifier($0.element) + " IS NOT ?\($0.offset + 1)" }
        guard !differs.isEmpty else { return nil }
        var sql =
            "SELECT 1 FROM \(SQL.identifier(mapping.table)) WHERE \(matches.joined(separator: " AND ")) "
            + "AND (\(differs.joined(separator: " OR ")))"
            + uncompared.map { " AND (?\($0.offset + 1) IS NULL OR 1)" }.joined()
        if !schema.isSingleEntityTable(mapping.table) {
            sql +=
                " AND \(SQL.identifier("_ent")) IN (\(mapping.hierarchyIDs.map(String.init).joined(separator: ", ")))"
        }
        let probe = Shape(
            statement: try connection.prepare(sql + " LIMIT 1"), names: shape.names, types: shape.types,
            optional: shape.optional, external: shape.external.map { _ in false }, omittedMandatory: [],
            primaryKeyParameter: nil,
            historyProperties: shape.historyProperties, keyProbe: nil)
        keptProbes[shape.names] = probe
        return probe
    }
}
