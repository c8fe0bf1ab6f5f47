package import FerrySQLite

/// Extra SQL that must commit in the same transaction as a write, or not at all: the importer's checkpoint and
/// run ledger, written with each chunk so a killed run resumes exactly after the last committed chunk.
///
/// It runs on the writer connection, inside the transaction, after the write's own SQL; throwing rolls the whole
/// transaction back. Ferry's own modules only: it may touch nothing but `ferry_` tables.
package typealias TransactionCompanion = @Sendable (Connection) throws -> Void

extension PersistentStore {
    /// Commits `companion` in a transaction of its own (a savepoint inside an enclosing transaction): a chunk with
    /// no row to write still moves its checkpoint.
    ///
    /// - Throws: what `companion` throws, or ``StoreError`` `.sqlite` when the transaction fails.
    package func commit(_ companion: @escaping TransactionCompanion) async throws {
        let path = writer.path
        do {
            try await writer.run { connection in try connection.transaction(.immediate) { try companion(connection) } }
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "committing a checkpoint failed", path: path, underlying: error)
        }
    }
}
