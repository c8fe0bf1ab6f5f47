import FerrySQLite
import Foundation

extension PersistentStore {
    /// Runs `body` with a ``ReadSnapshot`` of the store — or of a copy of it at `copyPath` (made by
    /// ``copy(to:)``), read with this store's model — on a read-only connection of its own, in one read
    /// transaction, on that connection's queue (off the cooperative pool). The connection is closed before this
    /// returns.
    ///
    /// - Throws: ``StoreError`` `.openFailed` for an in-memory store (it has no file to open twice) or a file that
    ///   cannot be opened, `.sqlite`; what `body` throws.
    package func withReadSnapshot<Result: Sendable>(
        ofCopyAt copyPath: String? = nil, _ body: @escaping @Sendable (ReadSnapshot) throws -> Result
    ) async throws -> Result {
        let path = try copyPath ?? fileLocation("reading a snapshot")
        let connection: SerializedConnection
        do {
            connection = try SerializedConnection(
                path: path, mode: .readOnly, busyTimeout: description.busyTimeout, label: "ferry.store.snapshot")
        } catch let error as SQLiteError {
            throw StoreError(.openFailed, "cannot open a read-only connection", path: path, underlying: error)
        }
        let schema = self.schema
        return try await connection.runAndClose { connection in
            do {
                try FetchPredicate.registerSQLFunctions(on: connection)
                try StoredValueCodec.registerKeyTextFunction(on: connection)
                try connection.execute("BEGIN DEFERRED")
            } catch let error as SQLiteError {
                throw StoreError(.sqlite, "starting a read snapshot failed", path: path, underlying: error)
            }
            // A read transaction changes nothing: ending it either way is the same, and a failed body must end it.
            defer { if connection.isInTransaction { try? connection.execute("ROLLBACK") } }
            return try body(ReadSnapshot(connection: connection, schema: schema, path: path))
        }
    }

    /// Writes a consistent copy of the store to `path` with `VACUUM INTO` (compacted, in rollback-journal mode, so
    /// the copy is one self-contained file), on a read-only connection of its own, closed before this returns;
    /// writers carry on meanwhile.
    ///
    /// The copy's external blob files are not copied here: see ``ReadSnapshot/blobReferences()``.
    /// - Throws: ``StoreError`` `.openFailed` for an in-memory store, `.sqlite` when SQLite fails (the target exists,
    ///   the disk is full…).
    package func copy(to path: String) async throws {
        let source = try fileLocation("copying the store")
        let connection: SerializedConnection
        do {
            connection = try SerializedConnection(
                path: source, mode: .readOnly, busyTimeout: description.busyTimeout, label: "ferry.store.copy")
        } catch let error as SQLiteError {
            throw StoreError(.openFailed, "cannot open a read-only connection", path: source, underlying: error)
        }
        try await connection.runAndClose { connection in
            do {
                try connection.copyDatabase(to: path)
            } catch let error as SQLiteError {
                throw StoreError(.sqlite, "copying the store to \(path) failed", path: source, underlying: error)
            }
        }
    }

    /// The file path of a file store; throws for an in-memory one.
    private func fileLocation(_ doing: String) throws -> String {
        guard case .file(let path) = description.location else {
            throw StoreError(.openFailed, "\(doing) needs a store file; an in-memory store has none")
        }
        return path
    }
}
