import FerrySQLite

/// A list of key texts kept in a table of the store's database: its text `column`, restricted to the rows whose
/// integer column `filterColumn` holds one of `filterValues` (all rows when `filterColumn` is `nil`).
///
/// ```swift
/// let seen = KeyTextList(table: "ferry_seen", column: "key", filterColumn: "run", filterValues: [12, 13])
/// ```
public struct KeyTextList: Sendable, Hashable {
    /// The table holding the key texts.
    public var table: String
    /// Its column of key texts.
    public var column: String
    /// An integer column restricting the rows read, or `nil` for all rows.
    public var filterColumn: String?
    /// The values of `filterColumn` whose rows are read.
    public var filterValues: [Int64]

    /// A list of the key texts in `column` of `table`, of the rows whose `filterColumn` is one of `filterValues`.
    public init(table: String, column: String, filterColumn: String? = nil, filterValues: [Int64] = []) {
        self.table = table
        self.column = column
        self.filterColumn = filterColumn
        self.filterValues = filterValues
    }
}

extension PersistentStore {
    /// The objects of `entity` (its sub-entities included) whose key (the attributes `keys`, as the store's key text:
    /// integers as digits, reals in their shortest form, text as is, binary in Base64, parts joined by U+001F) is not
    /// in `list`: what an import that holds the whole truth of its entity deletes. A key
    /// with a null part is never unseen. With `scope`, only the objects of those primary keys are considered.
    ///
    /// Reads on the writer, so it sees what the writer's open transaction has written.
    ///
    /// ```swift
    /// let (count, unseen) = try await store.objectIDs(
    ///     ofEntity: "Product", keyedBy: ["sku"], notIn: KeyTextList(table: "seen", column: "key"))
    /// ```
    ///
    /// - Returns: how many objects were considered, and the object IDs of the unseen ones.
    /// - Throws: ``StoreError`` `.invalidBatchRequest` for an unknown entity or attribute, `.sqlite` when SQLite
    ///   fails (a missing table, for one).
    public func objectIDs(
        ofEntity entity: String, keyedBy keys: [String], notIn list: KeyTextList, amongPrimaryKeys scope: [Int64]? = nil
    ) async throws -> (considered: Int, unseen: [ObjectID]) {
        guard let mapping = schema.mapping(for: entity) else {
            throw StoreError(.invalidBatchRequest, "no entity '\(entity)' to find unseen keys of")
        }
        for key in keys where !mapping.attributes.contains(where: { $0.name == key }) {
            throw StoreError(.invalidBatchRequest, "no attribute '\(key)' of '\(entity)' to find unseen keys by")
        }
        let keyText = "\(StoredValueCodec.keyTextFunction)(" + keys.map(SQL.identifier).joined(separator: ", ") + ")"
        let ids = mapping.hierarchyIDs.map(String.init).joined(separator: ", ")
        let table = SQL.identifier(mapping.table)
        var seenSQL = "SELECT \(SQL.identifier(list.column)) FROM \(SQL.identifier(list.table))"
        if let filter = list.filterColumn {
            seenSQL +=
                " WHERE \(SQL.identifier(filter)) IN (\(list.filterValues.map(String.init).joined(separator: ", ")))"
        }
        let (names, storeIdentifier, path, seen) = (schema.entityNames, identifier, writer.path, seenSQL)
        return try await writer.run { connection in
            do {
                var restriction = ""
                if let scope {
                    try connection.execute("CREATE TEMP TABLE IF NOT EXISTS ferry_key_scope (pk INTEGER PRIMARY KEY)")
                    try connection.execute("DELETE FROM temp.ferry_key_scope")
                    let insert = try connection.prepare("INSERT INTO temp.ferry_key_scope (pk) VALUES (?)")
                    for key in scope {
                        try insert.bind([.integer(key)])
                        try insert.run()
                    }
                    restriction = " AND _pk IN (SELECT pk FROM temp.ferry_key_scope)"
                }
                defer { if scope != nil { try? connection.execute("DELETE FROM temp.ferry_key_scope") } }
                let base = "FROM \(table) WHERE _ent IN (\(ids))\(restriction)"
                let count = try connection.prepare("SELECT count(*) \(base)").fetchOne()?[0].integer ?? 0
                let select = try connection.prepare("SELECT _pk, _ent \(base) AND \(keyText) NOT IN (\(seen))")
                let unseen = try select.fetchAll().map { row in
                    ObjectID(
                        entityName: names[Int(row[1].integer ?? 0)] ?? entity, primaryKey: row[0].integer ?? 0,
                        storeIdentifier: storeIdentifier)
                }
                return (Int(count), unseen)
            } catch let error as SQLiteError {
                throw StoreError(
                    .sqlite, "finding the \(entity) objects whose keys were not seen failed", path: path,
                    underlying: error)
            }
        }
    }
}
