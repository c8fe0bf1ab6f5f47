import FerrySQLite

/// Batch requests run straight against the store: each is one SQLite transaction on the writer
/// connection — all of it is written, or nothing — with no managed objects, no validation and no callbacks, and no
/// context learns of the change unless it merges the result's ``BatchUpdateResult/changes`` (see
/// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``) or merges batch changes automatically
/// (``PersistentContainer/automaticallyMergesBatchChanges``): each request posts its changes to ``batchChanges``
/// once committed, and returns after the contexts that merge them automatically have done so.
///
/// With ``PersistentStoreDescription/recordsHistory`` on, each request that changes rows records one history
/// transaction in its own SQLite transaction, attributed to the request's `transactionAuthor` (with no context
/// name), and posts a ``HistoryNotification`` once committed (see ``fetchHistory(after:author:)``).
extension PersistentStore {
    /// Inserts (or, by `mergePolicy`, upserts) the rows of `request` in one transaction.
    ///
    /// What a row whose uniqueness-constraint key is already stored — or was written by an earlier row of the same
    /// request — does, by policy (every uniqueness constraint of the entity counts):
    ///
    /// - ``MergePolicy/error``: the request fails with ``StoreError/Code/constraintConflict`` and nothing is
    ///   written (a key twice in the request fails it too).
    /// - ``MergePolicy/mergeByPropertyStoreTrump`` and ``MergePolicy/rollback``: the row is ignored and the stored
    ///   row keeps its values (insert-or-ignore); of two rows with one key, the first wins.
    /// - ``MergePolicy/mergeByPropertyObjectTrump``: upsert; the stored row keeps its primary key, takes the
    ///   attributes the row gives and gets `_opt` + 1; of two rows with one key, the last wins, attribute by
    ///   attribute.
    ///   A row whose given attributes already hold those values is left alone (not counted as updated, no `_opt`
    ///   bump, no history), so re-running an import changes nothing.
    /// - ``MergePolicy/overwrite``: unsupported, throws ``StoreError/Code/unsupportedRequest``.
    ///
    /// **Departure from Core Data:** an upsert changes only the attributes the request gives. Core Data copies
    /// every attribute of the incoming row, resetting the ones it left out to their defaults.
    ///
    /// New rows get `_opt` 1, the entity's `_ent`, and the model's default for each attribute they leave out.
    /// Values are not validated, except that each must suit its attribute's type and a new row may not leave a
    /// non-optional attribute without default empty.
    ///
    /// ```swift
    /// let request = BatchInsertRequest(
    ///     entityName: "Product", columns: ["sku", "price"], rows: rows, resultType: .count)
    /// let result = try await store.execute(request, mergePolicy: .mergeByPropertyObjectTrump)
    /// ```
    ///
    /// - Throws: ``StoreError``: `.invalidBatchRequest` for an unknown attribute, a relationship or a wrongly typed
    ///   value; `.missingMandatoryProperty`; `.constraintConflict`; `.unsupportedRequest`; `.sqlite`.
    public func execute(_ request: BatchInsertRequest, mergePolicy: MergePolicy) async throws -> BatchInsertResult {
        let schema = self.schema
        let identifier = self.identifier
        let primaryKeys = self.primaryKeys
        let resolution =
            mergePolicy == .error
            ? " (merge policy: error; mergeByPropertyObjectTrump updates stored rows, "
                + "mergeByPropertyStoreTrump keeps them)" : ""
        return try await runBatch(
            "batch insert into \(request.entityName)", entity: request.entityName, author: request.transactionAuthor,
            resolution: resolution
        ) { connection, recorder, blobs in
            // Inside the transaction, so no other writer can take the keys between choosing and using them;
            // reserving no key gives the first key above the table's rows and every key a context holds.
            var inserter = try BatchInserter(
                connection: connection, schema: schema, storeIdentifier: identifier, request: request,
                policy: mergePolicy, firstPrimaryKey: { try primaryKeys.reserve(0, in: $0, on: connection) })
            try inserter.validateNames(of: request.source)
            inserter.history = recorder
            inserter.blobs = blobs
            if request.refusesIncompleteNewRows { inserter.refusedRows = [] }
            inserter.countsKeptRows = request.countsKeptRows
            let result = try inserter.insert(request.source, resultType: request.resultType)
            try request.companion?(connection, result)
            return result
        }
    }

    /// Sets attributes of every object `request` matches, in one UPDATE, and increments each one's `_opt`.
    ///
    /// ```swift
    /// var request = BatchUpdateRequest(entityName: "Product", resultType: .updatedObjectsCount)
    /// request.predicate = try FetchPredicate(format: "discontinued == YES")
    /// request.propertiesToUpdate = ["price": .keyPath("price") * 0.5, "updatedAt": .now]
    /// let result = try await store.execute(request)
    /// ```
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` when a property or expression does not fit the model,
    ///   `.constraintConflict` when new values collide with a uniqueness constraint, `.sqlite`;
    ///   ``FetchPredicateError`` from the predicate.
    public func execute(_ request: BatchUpdateRequest) async throws -> BatchUpdateResult {
        let schema = self.schema
        let identifier = self.identifier
        return try await runBatch(
            "batch update of \(request.entityName)", entity: request.entityName, author: request.transactionAuthor
        ) { connection, recorder, blobs in
            try BatchUpdater(
                connection: connection, schema: schema, storeIdentifier: identifier, history: recorder, blobs: blobs
            ).update(request)
        }
    }

    /// Deletes the objects `request` names, applying the model's delete rules in SQL: cascade (recursively),
    /// nullify (clearing keys and bumping `_opt`), deny (refusing the whole request while a guarded relationship
    /// holds an object), no action. See ``BatchDeleteResult`` for what is reported.
    ///
    /// ```swift
    /// var old = FetchRequest(entityName: "Order")
    /// old.predicate = try FetchPredicate(format: "placedAt < %@", cutoff)
    /// let result = try await store.execute(BatchDeleteRequest(fetchRequest: old, resultType: .count))
    /// ```
    ///
    /// - Throws: ``StoreError`` `.batchDeleteDenied` (Core Data's 134060) when a deny rule would be broken (Core Data
    ///   refuses any request meeting a Deny rule; Ferry only one that would break it), ``ValidationError`` 1570
    ///   `missingMandatoryProperty` when nullify would empty a non-optional to-one (nothing is deleted in either
    ///   case); ``StoreError`` `.invalidBatchRequest` or `.sqlite`; ``FetchRequestError`` or ``FetchPredicateError``.
    public func execute(_ request: BatchDeleteRequest) async throws -> BatchDeleteResult {
        let schema = self.schema
        let identifier = self.identifier
        let primaryKeys = self.primaryKeys
        let table = schema.mapping(for: request.entityName)?.table
        return try await runBatch("batch delete", entity: request.entityName, author: request.transactionAuthor) {
            connection, recorder, _ in
            // The keys of the rows deleted are not given again by this process (SQLite would reuse the largest).
            if let table { _ = try primaryKeys.reserve(0, in: table, on: connection) }
            return try BatchDeleter(connection: connection, schema: schema, storeIdentifier: identifier, history: recorder)
                .delete(request)
        }
    }

    /// Runs one batch request: `body` in a transaction on the writer, with a history recorder when the store
    /// records history and a blob writer when values may go to files; after the commit, the removal of blob files
    /// the request released, the history notification and the announcement of the request's changes to live
    /// contexts.
    private func runBatch<Result: BatchResultWithChanges>(
        _ operation: String, entity: String, author: String?, resolution: String = "",
        _ body: @escaping @Sendable (Connection, HistoryRecorder?, BlobWriter?) throws -> Result
    ) async throws -> Result {
        let schema = self.schema
        let history = historyAttribution(author: author)
        let (result, token) = try await writer.run { connection in
            let blobs = self.blobWriter(on: connection)
            defer { if blobs != nil { self.releaseBlobs(on: connection) } }
            return try Self.mappingSQLiteErrors(
                operation: operation, entity: entity, schema: schema, path: connection.path, resolution: resolution
            ) {
                try connection.transaction {
                    try BlobWriter.discardingFilesOnFailure(blobs) {
                        let recorder = try HistoryRecorder(connection, schema, history)
                        let result = try body(connection, recorder, blobs)
                        return (result, try recorder?.finish())
                    }
                }
            }
        }
        historyNotifier.post(token: token, author: author, contextName: nil)
        var announced = result
        announced.changes.transactionAuthor = author
        await batchChangeNotifier.post(announced.changes)
        return announced
    }

    /// What a batch request's history transaction is attributed to; `nil` when the store records no history.
    private func historyAttribution(author: String?) -> HistoryAttribution? {
        description.recordsHistory ? HistoryAttribution(author: author, contextName: nil) : nil
    }

    /// Runs `body`, turning an ``SQLiteError`` into a ``StoreError`` that names the request.
    private static func mappingSQLiteErrors<Result>(
        operation: String, entity: String, schema: StoreSchema, path: String, resolution: String = "",
        _ body: () throws -> Result
    ) throws -> Result {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError.batch(
                error, operation: operation, entity: entity, schema: schema, path: path, resolution: resolution)
        }
    }
}

extension BatchDeleteRequest {
    /// The entity named by the fetch request or the first object ID, for messages.
    var entityName: String {
        switch source {
        case .fetchRequest(let request): request.entityName
        case .objectIDs(let ids): ids.first?.entityName ?? "(no objects)"
        }
    }
}

/// A batch request's result, with the changes announced to live contexts.
protocol BatchResultWithChanges: Sendable {
    var changes: RemoteChanges { get set }
}

extension BatchInsertResult: BatchResultWithChanges {}
extension BatchUpdateResult: BatchResultWithChanges {}
extension BatchDeleteResult: BatchResultWithChanges {}
