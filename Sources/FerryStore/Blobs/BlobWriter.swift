import FerrySQLite
import Foundation

/// Writes the blob files of one write transaction, on the store's writer connection, inside that transaction.
///
/// A binary value of an attribute that allows external storage, larger than the store's
/// ``PersistentStoreDescription/externalStorageThreshold``, is hashed, written to its file (only when no complete
/// file is there yet, see ``BlobFolder/write(_:as:)``) and registered in `ferry_blobs`; the row then gets the
/// reference's TEXT, and the triggers (``StoreSchema/blobStatements``) count it when the row is written. Because
/// files are written only while the transaction holds SQLite's write lock, a sweep that takes the lock never removes
/// a file a live writer is about to refer to.
///
/// When the transaction fails, ``discardCreatedFiles()`` removes the files it created, still under the lock; a
/// process that dies instead leaves them for the sweep. Not `Sendable`: it lives on the writer's executor.
final class BlobWriter {
    let folder: BlobFolder
    /// Values strictly larger than this many bytes go to files.
    let threshold: Int
    let connection: Connection
    private let faults: BlobFaultInjection?
    /// Files this transaction created, removed again if it fails.
    private(set) var createdFiles: [BlobReference] = []

    init(folder: BlobFolder, threshold: Int, connection: Connection, faults: BlobFaultInjection? = nil) {
        self.folder = folder
        self.threshold = max(threshold, 0)
        self.connection = connection
        self.faults = faults
    }

    /// Whether a value of `count` bytes goes to a file.
    @inline(__always)
    func externalizes(_ count: Int) -> Bool { count > threshold }

    /// Stores `bytes` in their file and returns the reference a column holds for them.
    ///
    /// - Throws: ``StoreError`` `.blobFileFailed` when the file cannot be written; ``SQLiteError``.
    func store(_ bytes: UnsafeRawBufferPointer) throws -> BlobReference {
        precondition(connection.isInTransaction, "blob files are written inside the write transaction")
        var hasher = SHA256.Hasher()
        hasher.update(bytes)
        let reference = BlobReference(digest: hasher.finalize())
        let created: Bool
        do {
            created = try folder.write(bytes, as: reference)
        } catch {
            throw StoreError.blobFile("writing a blob of \(bytes.count) bytes", error)
        }
        if created { createdFiles.append(reference) }
        let register = try connection.cachedStatement(
            "INSERT INTO ferry_blobs (hash, size, refs) VALUES (?, ?, 0) "
                + "ON CONFLICT (hash) DO UPDATE SET size = excluded.size")
        defer { register.reset() }
        try register.bind(reference.hash, at: 1)
        try register.bind(bytes.count, at: 2)
        _ = try register.step()
        if let faults, faults.takeCrash() { throw BlobFaultInjection.SimulatedCrash(reference: reference) }
        return reference
    }

    /// Binds `value` for `attribute` at parameter `index`: the reference of a stored file when the attribute allows
    /// external storage and the value is large enough, otherwise as ``Statement/bind(_:as:at:)`` binds it.
    ///
    /// - Throws: as ``store(_:)``; ``SQLiteError``.
    func bind(
        _ value: AttributeValue?, as attribute: AttributeDescription, to statement: Statement, at index: Int
    ) throws {
        if attribute.allowsExternalStorage, case .binary(let data) = value, externalizes(data.count) {
            let reference = try data.withUnsafeBytes { try store($0) }
            return try statement.bind(reference.storedText, at: index)
        }
        try statement.bind(value, as: attribute.type, at: index)
    }

    /// Removes the files this transaction created; call it, still inside the failing transaction, before it rolls
    /// back. Failures are left for the sweep.
    func discardCreatedFiles() {
        for reference in createdFiles { try? folder.removeFile(folder.filePath(of: reference)) }
        createdFiles.removeAll()
    }

    /// Runs `body` (a write transaction's work); when it throws, removes the files `writer` created before the
    /// error passes on — unless the error is a simulated crash, which leaves them as a dead process would.
    static func discardingFilesOnFailure<Result>(_ writer: BlobWriter?, _ body: () throws -> Result) throws -> Result {
        guard let writer else { return try body() }
        do {
            return try body()
        } catch let error as BlobFaultInjection.SimulatedCrash {
            throw error
        } catch {
            writer.discardCreatedFiles()
            throw error
        }
    }
}
