import FerryStore

/// Turns the natural keys of to-one destinations (`category: Coffee`) into primary keys, a chunk at a time: one
/// lookup per relationship per chunk for the distinct keys (``PersistentStore/objectIDs(ofEntity:where:isIn:)``),
/// never one per row.
struct RelationshipResolver: Sendable {
    let store: PersistentStore

    /// Primary keys of the `relationship` destinations whose key attribute holds one of `keys`.
    ///
    /// - Throws: ``StoreError`` when SQLite fails.
    func primaryKeys(for keys: Set<String>, of relationship: ImportPlan.ResolvedRelationship) async throws
        -> [String: Int64]
    {
        try await store.objectIDs(
            ofEntity: relationship.destinationEntity, where: relationship.keyAttribute, isIn: keys
        ).mapValues(\.primaryKey)
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
