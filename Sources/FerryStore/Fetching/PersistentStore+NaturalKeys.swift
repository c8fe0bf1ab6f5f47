import FerrySQLite

extension PersistentStore {
    /// The object IDs of the objects of `entity` (its sub-entities included) whose attribute `attribute` holds one of
    /// `values`, keyed by that value's key text (integers as digits, reals in their shortest form, text as is): a
    /// natural-key lookup in bulk, as an importer resolves the to-one
    /// relationships of a chunk of records (`category: Coffee`) with one query per few hundred keys rather than a
    /// fetch per record. An integer attribute's values are compared as their decimal text.
    ///
    /// Reads on the writer, so it sees what the writer's open transaction has written (see
    /// ``withEnclosingTransaction(_:)``). `attribute` should have a uniqueness constraint of its own: otherwise which
    /// object a value names is not defined, and the last row read wins.
    ///
    /// ```swift
    /// let ids = try await store.objectIDs(ofEntity: "Category", where: "name", isIn: ["Coffee", "Tea"])
    /// ids["Coffee"]?.primaryKey
    /// ```
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` for an unknown entity or attribute, `.sqlite` when SQLite
    ///   fails.
    public func objectIDs(ofEntity entity: String, where attribute: String, isIn values: Set<String>) async throws
        -> [String: ObjectID]
    {
        guard !values.isEmpty else { return [:] }
        guard let mapping = schema.mapping(for: entity), mapping.attributes.contains(where: { $0.name == attribute })
        else {
            throw StoreError(
                .invalidBatchRequest, "no attribute '\(attribute)' of an entity '\(entity)' to look objects up by")
        }
        let entityIDs = mapping.hierarchyIDs.map(String.init).joined(separator: ", ")
        let (table, key) = (SQL.identifier(mapping.table), SQL.identifier(attribute))
        let (names, identifier, path) = (schema.entityNames, self.identifier, writer.path)
        let values = Array(values)
        return try await writer.run { connection in
            var found: [String: ObjectID] = [:]
            var ids = ObjectIDMaker(storeIdentifier: identifier)
            // SQLite allows 32,766 parameters; 500 per statement keeps each one small.
            for start in stride(from: 0, to: values.count, by: 500) {
                let slice = values[start..<min(start + 500, values.count)]
                let sql =
                    "SELECT \(key), _pk, _ent FROM \(table) WHERE _ent IN (\(entityIDs)) "
                    + "AND \(key) IN (\(Array(repeating: "?", count: slice.count).joined(separator: ", ")))"
                do {
                    let select = try connection.prepare(sql)
                    try select.bind(slice.map { .text($0) })
                    for row in try select.fetchAll() {
                        guard let text = StoredValueCodec.keyText(of: [row[0]]), let primaryKey = row[1].integer
                        else { continue }
                        let name = row[2].integer.flatMap { names[Int($0)] } ?? entity
                        found[text] = ids.id(entityName: name, primaryKey: primaryKey)
                    }
                } catch let error as SQLiteError {
                    throw StoreError(.sqlite, "looking \(entity) objects up by \(attribute) failed", path: path,
                        underlying: error)
                }
            }
            return found
        }
    }
}
