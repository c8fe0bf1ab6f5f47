import FerryStore
import Logging

extension Importer {
    /// Replaces the rows of `entity` with what `commitChunks` writes: the stored rows are deleted (a batch delete,
    /// so delete rules, history and blob files hold) and the chunks committed in one enclosing transaction
    /// (``PersistentStore/withEnclosingTransaction(_:)``). Readers see the old rows until the last chunk is in; a run
    /// that fails, or is killed, leaves them as they were. `failed` runs inside the transaction, before its rollback.
    ///
    /// - Returns: the rows deleted.
    /// - Throws: what the deletion or `commitChunks` throws (after the rollback), ``StoreError`` when the transaction
    ///   cannot commit.
    func replaceRows(
        of entity: String, author: String, committing commitChunks: () async throws -> Void,
        onFailure failed: () async -> Void
    ) async throws -> Int {
        let store = container.persistentStore
        return try await store.withEnclosingTransaction {
            do {
                var request = BatchDeleteRequest(fetchRequest: FetchRequest(entityName: entity), resultType: .count)
                request.transactionAuthor = author
                let deleted = try await store.execute(request).deletedCount
                if deleted > 0 { logger.info("\(entity): \(deleted) stored rows are replaced by the records read") }
                try await commitChunks()
                return deleted
            } catch {
                await failed()
                throw error
            }
        }
    }
}
