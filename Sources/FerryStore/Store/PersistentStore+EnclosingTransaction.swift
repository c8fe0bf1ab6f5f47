import FerrySQLite
import Logging

extension PersistentStore {
    /// Runs `body` with every write to the store in one SQLite transaction: what `body` writes, through any number
    /// of batch requests and saves, is committed together when it returns and rolled back together when it throws,
    /// or when the process dies before the commit. Readers see the store as it was until the commit.
    ///
    /// Inside, each batch request and save is a savepoint of the enclosing transaction: one that fails is rolled back
    /// alone and `body` may go on. Blob files that writes inside released are removed only once the enclosing
    /// transaction commits; files written inside it and rolled back are swept right after the rollback. The batch
    /// change and history notifications of the requests inside are posted as each request ends, before the commit:
    /// a context that merges them reads the store as it was until then.
    ///
    /// Inside an enclosing transaction already open, this one is a savepoint of it: rolled back alone when `body`
    /// throws, committed with the outer one.
    ///
    /// The store's writer serves every caller: while `body` runs, writes from elsewhere in the process join the
    /// enclosing transaction. A bulk job that holds the store alone uses this to replace an entity's rows at once:
    ///
    /// ```swift
    /// try await store.withEnclosingTransaction {
    ///     _ = try await store.execute(BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Event")))
    ///     for chunk in chunks { _ = try await store.execute(chunk, mergePolicy: .mergeByPropertyStoreTrump) }
    /// }
    /// ```
    ///
    /// - Throws: what `body` throws (after the rollback), or ``StoreError`` `.sqlite` when the transaction cannot
    ///   begin or commit (then nothing `body` wrote is kept).
    public func withEnclosingTransaction<Result>(_ body: () async throws -> Result) async throws -> Result {
        let path = writer.path
        let nested: Bool
        do {
            nested = try await writer.run { connection in
                let nested = connection.isInTransaction
                try connection.execute(nested ? "SAVEPOINT ferry_enclosing" : "BEGIN IMMEDIATE")
                return nested
            }
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "cannot begin the enclosing transaction", path: path, underlying: error)
        }
        let result: Result
        do {
            result = try await body()
            try await writer.run { connection in
                do {
                    try connection.execute(nested ? "RELEASE ferry_enclosing" : "COMMIT")
                } catch {
                    if connection.isInTransaction && !nested { try? connection.execute("ROLLBACK") }
                    throw error
                }
            }
        } catch {
            await rollBackEnclosingTransaction(nested: nested)
            if let error = error as? SQLiteError {
                throw StoreError(.sqlite, "committing the enclosing transaction failed", path: path, underlying: error)
            }
            throw error
        }
        if blobFolder != nil && !nested {
            try? await writer.run { connection in self.releaseBlobs(on: connection) }
        }
        return result
    }

    /// Rolls back the open enclosing transaction (or savepoint, when `nested`), and removes the blob files written
    /// inside it once no transaction is left open.
    private func rollBackEnclosingTransaction(nested: Bool) async {
        try? await writer.run { connection in
            guard connection.isInTransaction else { return }
            try connection.execute(
                nested ? "ROLLBACK TO ferry_enclosing; RELEASE ferry_enclosing" : "ROLLBACK")
        }
        if blobFolder != nil && !nested {
            do {
                _ = try await sweepBlobs()
            } catch {
                logger.warning("removing blob files of a rolled-back transaction failed; the next sweep removes them: \(error)")
            }
        }
    }
}
