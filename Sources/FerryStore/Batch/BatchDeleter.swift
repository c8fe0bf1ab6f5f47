import FerrySQLite

/// Runs one ``BatchDeleteRequest`` on the writer connection, inside a transaction the caller opens, applying the
/// model's delete rules in SQL:
///
/// 1. The rows the request names go into a temporary table, ``pending`` (`tbl`, `pk`, `ent`, `direct`).
/// 2. **Cascade**, until nothing new is found: the objects each pending row's cascade relationships hold join the
///    table (through to-one keys, inverse keys and join tables; a cycle ends because a row is listed once).
/// 3. **Deny**: when a deny relationship of any pending row holds an object, the request fails with
///    ``StoreError`` `.batchDeleteDenied` (Core Data's 134060), before anything is written. Departure: Core Data's
///    batch delete refuses any request that meets a Deny rule, even one whose relationships are empty; refusing
///    only when a rule would be broken lets a cleanup job delete the rows the rule does not protect.
/// 4. **Nullify**: surviving objects whose key points back at a deleted one get NULL and `_opt + 1`; when that key
///    is a non-optional to-one, the request fails with ``ValidationError`` 1570 instead, as Core Data's batch
///    delete does. **No action** leaves them pointing at the deleted row.
/// 5. Join-table rows naming a deleted object are removed whatever the rule: they are the deleted object's own
///    storage of the relationship, as its foreign-key columns are.
/// 6. The rows are deleted.
struct BatchDeleter {
    /// The temporary table of rows being deleted.
    static let pending = "\"temp\".\"ferry_batch_delete\""

    let connection: Connection
    let schema: StoreSchema
    let storeIdentifier: String
    /// Records the deleted rows (with their tombstones) and the nullified ones, when the store records history.
    var history: HistoryRecorder? = nil

    /// Deletes what `request` names, with the rules' consequences, and returns what its result type asks for.
    ///
    /// - Throws: ``StoreError`` `.batchDeleteDenied` when a Deny rule refuses, ``ValidationError`` 1570 when nullify
    ///   would empty a non-optional to-one; ``StoreError`` `.invalidBatchRequest` for
    ///   object IDs of another store or of several hierarchies; ``FetchRequestError`` or ``FetchPredicateError``
    ///   from the fetch request; SQLite errors pass through for the caller to map.
    func delete(_ request: BatchDeleteRequest) throws -> BatchDeleteResult {
        try connection.execute(
            "CREATE TEMP TABLE IF NOT EXISTS \(Self.pending) (tbl TEXT NOT NULL, pk INTEGER NOT NULL, "
                + "ent INTEGER NOT NULL, direct INTEGER NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID")
        try connection.execute("DELETE FROM \(Self.pending)")
        switch request.source {
        case .fetchRequest(let fetchRequest): try seed(fetchRequest)
        case .objectIDs(let ids): try seed(ids)
        }
        let rules = schema.model.entities.flatMap { entity -> [BatchDeleteRule] in
            guard let mapping = schema.mapping(for: entity.name) else { return [] }
            return schema.model.allRelationships(of: entity.name).compactMap {
                BatchDeleteRule($0, of: mapping, in: schema)
            }
        }
        try cascade(rules.filter { $0.relationship.deleteRule == .cascade })
        try checkDenials(rules.filter { $0.relationship.deleteRule == .deny })
        let nullified = rules.filter { $0.relationship.deleteRule == .nullify && $0.inverseColumns != nil }
        try checkMandatoryInverses(nullified)
        var result = try outcome(resultType: request.resultType)
        result.changes.updatedObjectIDs = try nullify(nullified)
        try deleteJoinRows()
        try history?.recordDeletes(listedIn: Self.pending)
        // The deleted rows' blob references are released by the `ferry_blobs` triggers as the rows go, cascaded ones
        // included; the store removes the files once the transaction commits (see `PersistentStore+Blobs.swift`).
        for table in Set(schema.entities.values.map(\.table)).sorted() {
            try run(
                "DELETE FROM \(SQL.identifier(table)) WHERE \"_pk\" IN (SELECT pk FROM \(Self.pending) WHERE tbl = ?)",
                [.text(table)])
        }
        try connection.execute("DELETE FROM \(Self.pending)")
        return result
    }

    // MARK: Steps

    /// Lists the objects the fetch request matches (its limit, offset and order included).
    private func seed(_ fetchRequest: FetchRequest) throws {
        var request = fetchRequest
        request.resultType = .managedObjectID
        if request.fetchLimit == 0 && request.fetchOffset == 0 { request.sortDescriptors = [] }
        let query = try request.compile(in: schema)
        guard let mapping = schema.mapping(for: request.entityName) else { return }
        try FetchPredicate.registerSQLFunctions(on: connection)
        try run(
            "INSERT OR IGNORE INTO \(Self.pending) (tbl, pk, ent, direct) SELECT ?, \"ids\".*, 1 FROM (\(query.sql)) "
                + "AS \"ids\"",
            [.text(mapping.table)] + query.bindings)
    }

    /// Lists the objects `ids` name that are still stored.
    private func seed(_ ids: [ObjectID]) throws {
        var table: String?
        for id in ids {
            guard !id.isTemporaryID, id.storeIdentifier == storeIdentifier else {
                throw StoreError(
                    .invalidBatchRequest,
                    "batch delete: object ID \(id) is \(id.isTemporaryID ? "temporary" : "of another store")")
            }
            guard let mapping = schema.mapping(for: id.entityName) else {
                throw StoreError(.invalidBatchRequest, "batch delete: the model has no entity '\(id.entityName)'")
            }
            if table == nil { table = mapping.table }
            guard table == mapping.table else {
                throw StoreError(
                    .invalidBatchRequest,
                    "batch delete: the object IDs belong to several entities (\(id.entityName) is not in the "
                        + "hierarchy of \(table ?? "")); delete each entity with its own request")
            }
        }
        guard let table else { return }
        let insert = try connection.prepare(
            "INSERT OR IGNORE INTO \(Self.pending) (tbl, pk, ent, direct) SELECT ?, \"_pk\", \"_ent\", 1 FROM "
                + "\(SQL.identifier(table)) WHERE \"_pk\" = ? AND \"_ent\" = ?")
        try insert.bind(table, at: 1)
        for id in ids {
            try insert.bind(id.primaryKey, at: 2)
            try insert.bind(schema.mapping(for: id.entityName)?.entityID ?? 0, at: 3)
            try insert.run()
        }
    }

    /// Adds what cascade relationships hold, round after round, until a round adds nothing.
    private func cascade(_ rules: [BatchDeleteRule]) throws {
        var added = 1
        while added > 0 {
            added = 0
            for rule in rules {
                try run(
                    "INSERT OR IGNORE INTO \(Self.pending) (tbl, pk, ent, direct) SELECT ?, \"x\".*, 0 FROM "
                        + "(\(rule.destinationsSQL)) AS \"x\"",
                    [.text(rule.destination.table), .text(rule.source.table)])
                added += connection.changes
            }
        }
    }

    /// Fails when a deny relationship of a pending row holds an object.
    private func checkDenials(_ rules: [BatchDeleteRule]) throws {
        for rule in rules where try exists("\(rule.destinationsSQL) LIMIT 1", [.text(rule.source.table)]) {
            throw StoreError(
                .batchDeleteDenied,
                "batch delete refused: the deny rule of \(rule.source.entity).\(rule.relationship.name) forbids "
                    + "deleting a \(rule.source.entity) that still holds \(rule.destination.entity) objects; nothing "
                    + "was deleted")
        }
    }

    /// Fails when nullify would empty a non-optional to-one of an object that survives.
    private func checkMandatoryInverses(_ rules: [BatchDeleteRule]) throws {
        for rule in rules {
            guard let inverse = rule.mandatoryInverse(in: schema.model), let columns = rule.inverseColumns else {
                continue
            }
            let (sql, bindings) = survivorsPointingBack(rule, column: columns.column)
            if try exists("SELECT 1 FROM \(SQL.identifier(rule.destination.table)) WHERE \(sql) LIMIT 1", bindings) {
                throw ValidationError(
                    .missingMandatoryProperty,
                    message: "batch delete refused: deleting \(rule.source.entity) objects would nullify the "
                        + "non-optional relationship '\(inverse.name)' of \(rule.destination.entity) objects that "
                        + "are not deleted; nothing was deleted",
                    entity: rule.destination.entity, key: inverse.name)
            }
        }
    }

    /// Clears the keys of surviving objects that point back at deleted ones, and bumps their `_opt`; returns those
    /// objects.
    private func nullify(_ rules: [BatchDeleteRule]) throws -> ObjectIDSet {
        var nullified = ObjectIDSetBuilder(storeIdentifier: storeIdentifier, entityNames: schema.entityNames)
        for rule in rules {
            guard let columns = rule.inverseColumns else { continue }
            let version = SQL.identifier("_opt")
            let cleared = [columns.column] + (columns.entityColumn.map { [$0] } ?? [])
            let assignments = cleared.map { "\(SQL.identifier($0)) = NULL" } + ["\(version) = \(version) + 1"]
            let (condition, bindings) = survivorsPointingBack(rule, column: columns.column)
            // The relationship cleared is the to-one whose column this is, named as its column.
            try history?.recordUpdates(
                inTable: rule.destination.table, where: condition, bindings, properties: columns.column)
            let statement = try connection.cachedStatement(
                "UPDATE \(SQL.identifier(rule.destination.table)) SET \(assignments.joined(separator: ", ")) "
                    + "WHERE \(condition) RETURNING \"_pk\", \"_ent\"")
            defer { statement.reset() }
            try statement.bind(bindings)
            while try statement.step() { nullified.append(statement.int64(at: 0), ent: Int(statement.int64(at: 1))) }
        }
        return nullified.build()
    }

    /// Removes the join-table rows that name a pending row on either side.
    private func deleteJoinRows() throws {
        for join in schema.joinTables {
            guard let source = schema.mapping(for: join.sourceEntity)?.table,
                let destination = schema.mapping(for: join.destinationEntity)?.table
            else { continue }
            try run(
                "DELETE FROM \(SQL.identifier(join.name)) WHERE "
                    + "source IN (SELECT pk FROM \(Self.pending) WHERE tbl = ?) OR "
                    + "destination IN (SELECT pk FROM \(Self.pending) WHERE tbl = ?)",
                [.text(source), .text(destination)])
        }
    }

    /// Counts (and, for the object-IDs result type, lists) the pending rows, split into named and cascaded, and
    /// collects them all as the result's deleted ``BatchDeleteResult/changes`` — in one pass over the pending table,
    /// in key order, without an ``ObjectID`` per row unless the result type lists them.
    private func outcome(resultType: BatchDeleteRequest.ResultType) throws -> BatchDeleteResult {
        var direct: [ObjectID] = []
        var cascaded: [ObjectID] = []
        var directCount = 0
        var cascadedCount = 0
        var deleted = ObjectIDSetBuilder(storeIdentifier: storeIdentifier, entityNames: schema.entityNames)
        var ids = ObjectIDMaker(storeIdentifier: storeIdentifier)
        let statement = try connection.prepare("SELECT pk, ent, direct FROM \(Self.pending) ORDER BY tbl, pk")
        while try statement.step() {
            let key = statement.int64(at: 0)
            let ent = Int(statement.int64(at: 1))
            let isDirect = statement.int64(at: 2) == 1
            deleted.append(key, ent: ent)
            if isDirect { directCount += 1 } else { cascadedCount += 1 }
            guard resultType == .objectIDs, let entity = schema.entityNames[ent] else { continue }
            let id = ids.id(entityName: entity, primaryKey: key)
            if isDirect { direct.append(id) } else { cascaded.append(id) }
        }
        let result: BatchDeleteResult.Result =
            switch resultType {
            case .statusOnly: .status(true)
            case .count: .count(directCount)
            case .objectIDs: .objectIDs(direct)
            }
        return BatchDeleteResult(
            result: result, deletedCount: directCount, cascadedCount: cascadedCount, cascadedObjectIDs: cascaded,
            changes: RemoteChanges(inserted: ObjectIDSet(), updated: ObjectIDSet(), deleted: deleted.build()))
    }

    // MARK: SQL

    /// `"c" IN (<pending rows of the source>) AND <destination entity> AND <not pending itself>`, for the
    /// destination table.
    private func survivorsPointingBack(_ rule: BatchDeleteRule, column: String) -> (String, [SQLiteValue]) {
        let ids = rule.destination.hierarchyIDs.map(String.init).joined(separator: ", ")
        return (
            "\(SQL.identifier(column)) IN (SELECT pk FROM \(Self.pending) WHERE tbl = ? AND ent = "
                + "\(rule.source.entityID)) AND \"_ent\" IN (\(ids)) AND \"_pk\" NOT IN "
                + "(SELECT pk FROM \(Self.pending) WHERE tbl = ?)",
            [.text(rule.source.table), .text(rule.destination.table)]
        )
    }

    private func run(_ sql: String, _ bindings: [SQLiteValue]) throws {
        let statement = try connection.cachedStatement(sql)
        try statement.bind(bindings)
        try statement.run()
    }

    private func exists(_ sql: String, _ bindings: [SQLiteValue]) throws -> Bool {
        let statement = try connection.cachedStatement(sql)
        try statement.bind(bindings)
        return try statement.fetchOne() != nil
    }
}
