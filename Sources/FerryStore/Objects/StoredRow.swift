import FerrySQLite

/// One object's row as read from the store, decoded into its layout's slots.
struct StoredRow: Sendable {
    let objectID: ObjectID
    /// The row's `_opt`.
    let version: Int64
    /// Every attribute slot; transient ones are nil.
    let attributes: [AttributeValue?]
    let toOne: [ObjectID?]
}

extension EntityLayout {
    /// `SELECT <columns> FROM <table> WHERE _pk IN (?, …)` for `count` keys (`= ?` for one).
    func selectSQL(keys count: Int) -> String {
        let condition = count == 1 ? "= ?" : "IN (" + Array(repeating: "?", count: count).joined(separator: ", ") + ")"
        return "SELECT \(selectColumns) FROM \(SQL.identifier(table)) WHERE \(SQL.identifier("_pk")) \(condition)"
    }

    /// Reads the rows of `keys` (primary keys of this entity's objects), in no particular order, at most
    /// ``keysPerQuery`` keys per query.
    ///
    /// - Throws: ``SQLiteError``, or ``FetchRequestError`` when a stored value does not decode.
    func readRows(
        _ keys: [Int64], on connection: Connection, schema: StoreSchema, storeIdentifier: String
    ) throws -> [StoredRow] {
        var rows: [StoredRow] = []
        rows.reserveCapacity(keys.count)
        let blobFolder = BlobFolder(databasePath: connection.path)
        var ids = ObjectIDMaker(storeIdentifier: storeIdentifier)
        for start in stride(from: 0, to: keys.count, by: Self.keysPerQuery) {
            let batch = keys[start..<min(start + Self.keysPerQuery, keys.count)]
            let statement = try connection.cachedStatement(selectSQL(keys: batch.count))
            defer { statement.reset() }
            for (offset, key) in batch.enumerated() { try statement.bind(key, at: offset + 1) }
            while try statement.step() {
                rows.append(
                    try decodeRow(statement, schema: schema, ids: &ids, blobFolder: blobFolder))
            }
        }
        return rows
    }

    /// The most keys one `IN (…)` list binds.
    static let keysPerQuery = 500

    /// Decodes the current row of `statement`, which selected ``selectColumns``, reading externally stored values
    /// from `blobFolder`; `ids` makes the object IDs, of the store's objects.
    ///
    /// - Throws: ``FetchRequestError`` `.undecodableValue` when a stored value does not fit its attribute;
    ///   ``StoreError`` when a blob reference is malformed or its file cannot be read.
    func decodeRow(
        _ statement: Statement, schema: StoreSchema, ids: inout ObjectIDMaker, blobFolder: BlobFolder?
    ) throws -> StoredRow {
        let decoder = FetchValueDecoder(entityName: name, blobFolder: blobFolder)
        var attributes: [AttributeValue?] = Array(repeating: nil, count: self.attributes.count)
        var column = 3
        for slot in storedAttributeSlots {
            let attribute = self.attributes[slot]
            attributes[slot] = try decoder.decode(
                statement.value(at: column), .attribute(attribute.type), key: attribute.name)
            column += 1
        }
        var toOne: [ObjectID?] = []
        toOne.reserveCapacity(foreignKeys.count)
        for key in foreignKeys {
            let primaryKey = statement.isNull(at: column) ? nil : statement.int64(at: column)
            column += 1
            var destination = key.destinationEntity
            if key.entityColumn != nil {
                if let name = schema.entityNames[Int(statement.int64(at: column))] { destination = name }
                column += 1
            }
            toOne.append(primaryKey.map { ids.id(entityName: destination, primaryKey: $0) })
        }
        let entityName = schema.entityNames[Int(statement.int64(at: 1))] ?? name
        return StoredRow(
            objectID: ids.id(entityName: entityName, primaryKey: statement.int64(at: 0)),
            version: statement.int64(at: 2), attributes: attributes, toOne: toOne)
    }
}
