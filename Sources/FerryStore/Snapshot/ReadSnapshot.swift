package import FerrySQLite
import Foundation

/// One read transaction on a read-only connection of its own: everything read through it sees the store as it was
/// when the snapshot began (SQLite's WAL snapshot isolation), however many writes commit meanwhile.
///
/// Exports, snapshots and `ferry inspect` read through it (see ``PersistentStore/withReadSnapshot(ofCopyAt:_:)``).
/// Like its connection, a snapshot is not `Sendable`: it lives on its connection's queue for the duration of the
/// closure that receives it.
///
/// ```swift
/// try await store.withReadSnapshot { snapshot in
///     let rows = try snapshot.rows(of: FetchRequest(entityName: "Product", resultType: .dictionary))
///     while try rows.next() { _ = rows.text(at: 0) }
///     return snapshot.historyToken
/// }
/// ```
package final class ReadSnapshot {
    /// The store's mapping of the model.
    package let schema: StoreSchema
    /// The database file read.
    package let path: String
    /// The token of the latest history transaction the snapshot sees (kept or purged), or `nil` when none was
    /// recorded.
    package let historyToken: Int64?
    /// Whether the store has history tables (some writer recorded, or records, persistent history).
    package let hasHistory: Bool
    let connection: Connection

    /// Starts reading: the first read pins the snapshot. Call inside an open `BEGIN DEFERRED`.
    init(connection: Connection, schema: StoreSchema, path: String) throws {
        self.connection = connection
        self.schema = schema
        self.path = path
        do {
            hasHistory = try HistoryTables.exist(on: connection)
            let reader = HistoryReader(connection: connection, schema: schema, storeIdentifier: "")
            historyToken = hasHistory ? try reader.currentToken() : nil
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "starting a read snapshot failed", path: path, underlying: error)
        }
    }

    /// A cursor over the rows `request` fetches as dictionaries (its result type is taken to be
    /// ``FetchRequest/ResultType/dictionary``; aggregates and groups are not supported here), optionally only the
    /// objects inserted or updated by history transactions after `changedAfter`.
    ///
    /// - Throws: ``FetchRequestError`` or ``FetchPredicateError`` when the request does not fit the model;
    ///   ``StoreError`` `.historyTokenExpired` when the history after `changedAfter` was deleted, `.sqlite`.
    package func rows(of request: FetchRequest, changedAfter token: Int64? = nil) throws -> SnapshotRows {
        var request = request
        request.resultType = .dictionary
        guard request.aggregates.isEmpty, request.propertiesToGroupBy.isEmpty else {
            throw FetchRequestError(
                code: .invalidRequest, message: "a snapshot reads rows, not aggregates or groups",
                entityName: request.entityName)
        }
        let restriction = try token.map { try changedRowsRestriction(request, after: $0) }
        let compiled = try request.compile(in: schema, restriction: restriction)
        let columns = compiled.columns.map { column -> SnapshotRows.Column in
            guard case .attribute(let type) = column.decoding else {
                preconditionFailure("a dictionary fetch without aggregates reads attributes only")
            }
            return SnapshotRows.Column(key: column.key, type: type)
        }
        return try sqlite("reading \(request.entityName)") {
            let statement = try connection.prepare(compiled.sql)
            try statement.bind(compiled.bindings)
            return SnapshotRows(columns: columns, statement: statement, entityName: request.entityName, path: path)
        }
    }

    /// The objects of `entity` (and its sub-entities) that history transactions after `token` deleted, oldest first,
    /// each with its tombstone (the values of its uniqueness-constrained attributes).
    ///
    /// - Throws: ``StoreError`` `.historyTokenExpired`, `.sqlite`.
    package func deletedObjects(of entity: String, after token: Int64) throws -> [HistoryChange] {
        try checkHistoryKept(after: token)
        guard let mapping = schema.mapping(for: entity), hasHistory else { return [] }
        let entities = mapping.hierarchyIDs.map(String.init).joined(separator: ", ")
        return try sqlite("reading deleted objects") {
            let changes = try connection.prepare(
                "SELECT token, ent, pk FROM \(SQL.identifier(HistoryTables.changes)) WHERE token > ? AND "
                    + "kind = 'delete' AND ent IN (\(entities)) ORDER BY token, ent, pk")
            try changes.bind([.integer(token)])
            let tombstones = try connection.prepare(
                "SELECT attribute, value FROM \(SQL.identifier(HistoryTables.tombstones)) WHERE token = ? AND ent = ? "
                    + "AND pk = ? ORDER BY attribute")
            var deleted: [HistoryChange] = []
            for row in try changes.fetchAll() {
                guard let ent = row[1].integer, let pk = row[2].integer, let name = schema.entityNames[Int(ent)]
                else { continue }
                try tombstones.bind(row.values)
                var values: [String: AttributeValue] = [:]
                for value in try tombstones.fetchAll() {
                    guard let attribute = value[0].text,
                        let type = schema.model.allAttributes(of: name).first(where: { $0.name == attribute })?.type,
                        let decoded = StoredValueCodec.decode(value[1], as: type)
                    else { continue }
                    values[attribute] = decoded
                }
                deleted.append(
                    HistoryChange(
                        objectID: ObjectID(entityName: name, primaryKey: pk, storeIdentifier: ""), kind: .delete,
                        tombstone: values))
            }
            return deleted
        }
    }

    /// How many objects of `entity` (sub-entities' included) the snapshot holds.
    ///
    /// - Throws: ``FetchRequestError`` for an unknown entity, ``StoreError`` `.sqlite`.
    package func count(of entity: String) throws -> Int {
        let compiled = try FetchRequest(entityName: entity, resultType: .count).compile(in: schema)
        return try sqlite("counting \(entity)") {
            let statement = try connection.prepare(compiled.sql)
            try statement.bind(compiled.bindings)
            return Int(try statement.fetchOne()?[0].integer ?? 0)
        }
    }

    /// How many history transactions the snapshot holds (0 without history tables).
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    package func historyTransactionCount() throws -> Int {
        guard hasHistory else { return 0 }
        return try sqlite("counting history transactions") {
            Int(
                try connection.prepare("SELECT count(*) FROM \(SQL.identifier(HistoryTables.transactions))")
                    .fetchOne()?[0].integer ?? 0)
        }
    }

    /// The model versions the store has had, as of the snapshot (empty for a store without a model history).
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    package func modelHistory() throws -> ModelHistory {
        try sqlite("reading the model history") { try ModelHistory.read(on: connection) }
    }

    /// Whether the store has a table named `name` (such as `ferry_runs`, which only a pipeline run creates).
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    package func hasTable(_ name: String) throws -> Bool {
        try sqlite("reading the schema") {
            let statement = try connection.prepare(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?")
            try statement.bind([.text(name)])
            return try statement.fetchOne()?[0].integer == 1
        }
    }

    /// Every row of a read-only `sql` statement, for Ferry's own tables (the run ledger, the export tokens).
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    package func rows(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [Row] {
        try sqlite("reading the store") {
            let statement = try connection.prepare(sql)
            try statement.bind(bindings)
            return try statement.fetchAll()
        }
    }

    /// The condition "inserted or updated by a transaction after `token`" on the rows of `request`'s entity.
    private func changedRowsRestriction(_ request: FetchRequest, after token: Int64) throws -> RowRestriction {
        guard hasHistory else {
            throw StoreError(
                .historyNotRecorded,
                "the store does not record persistent history, so changes since a previous export cannot be found; "
                    + "open it with recordsHistory (a pipeline's `history: true`) before the writes to export",
                path: path)
        }
        try checkHistoryKept(after: token)
        guard let mapping = schema.mapping(for: request.entityName) else {
            throw FetchRequestError(
                code: .unknownEntity, message: "the model has no entity '\(request.entityName)'",
                entityName: request.entityName)
        }
        let entities = (request.includesSubentities ? mapping.hierarchyIDs : [mapping.entityID])
            .map(String.init).joined(separator: ", ")
        let changes = SQL.identifier(HistoryTables.changes)
        return RowRestriction(
            condition: { alias in
                "\(SQL.identifier(alias)).\"_pk\" IN (SELECT pk FROM \(changes) WHERE token > ? AND "
                    + "kind IN ('insert', 'update') AND ent IN (\(entities)))"
            }, bindings: [.integer(token)])
    }

    /// Fails when history after `token` was deleted, so changes since would be missed.
    private func checkHistoryKept(after token: Int64) throws {
        guard hasHistory else { return }
        let purged = try rows(
            "SELECT value FROM ferry_metadata WHERE key = ?", [.text(HistoryTables.purgedThroughKey)]
        ).first?[0].integer
        if let purged, token < purged {
            throw StoreError(
                .historyTokenExpired,
                "the history after token \(token) was deleted up to token \(purged); export everything again",
                path: path)
        }
    }

    private func sqlite<Value>(_ doing: String, _ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "\(doing) failed", path: path, underlying: error)
        }
    }
}

extension StoreError.Code {
    /// The store has no persistent history, which the operation needs (an incremental export).
    public static let historyNotRecorded = Self(rawValue: "historyNotRecorded", coreDataCode: 134060)
}
