import FerrySQLite
import FerryStore

/// Turns the natural keys of to-one destinations (`category: Coffee`) into primary keys, a chunk at a time: one
/// SELECT per relationship per chunk for the distinct keys, never one per row.
struct RelationshipResolver: Sendable {
    let store: PersistentStore

    /// Primary keys of the `relationship` destinations whose key attribute holds one of `keys`.
    ///
    /// - Throws: ``StoreError`` when SQLite fails.
    func primaryKeys(for keys: Set<String>, of relationship: ImportPlan.ResolvedRelationship) async throws
        -> [String: Int64]
    {
        guard !keys.isEmpty else { return [:] }
        let entityIDs = store.schema.mapping(for: relationship.destinationEntity)?.hierarchyIDs ?? []
        let table = SQL.identifier(relationship.destinationTable)
        let key = SQL.identifier(relationship.keyAttribute)
        let keys = Array(keys)
        let path = store.writer.path
        return try await store.writer.run { connection in
            var found: [String: Int64] = [:]
            // SQLite allows 32,766 parameters; 500 per statement keeps each one small and cached.
            for start in stride(from: 0, to: keys.count, by: 500) {
                let slice = keys[start..<min(start + 500, keys.count)]
                let sql =
                    "SELECT \(key), _pk FROM \(table) WHERE _ent IN (\(entityIDs.map(String.init).joined(separator: ", "))) "
                    + "AND \(key) IN (\(Array(repeating: "?", count: slice.count).joined(separator: ", ")))"
                do {
                    let select = try connection.prepare(sql)
                    try select.bind(slice.map { .text($0) })
                    for row in try select.fetchAll() {
                        if let text = row[0].text ?? row[0].integer.map(String.init), let primaryKey = row[1].integer {
                            found[text] = primaryKey
                        }
                    }
                } catch let error as SQLiteError {
                    throw StoreError(
                        .sqlite, "resolving \(relationship.name) keys failed", path: path, underlying: error)
                }
            }
            return found
        }
    }

    /// Each row's key in packed column `column` (`nil` where the row gives none), decoded once per row.
    static func rowKeys(in rows: PackedRows, column: Int) -> [String?] {
        (0..<rows.count).map { row in
            let cell = rows.cell(row: row, column: column)
            guard case .text = cell else { return nil }
            return rows.withBytes(of: cell) { String(decoding: $0, as: UTF8.self) }
        }
    }
}
