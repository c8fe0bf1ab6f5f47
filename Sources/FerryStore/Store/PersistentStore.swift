import Dispatch
import Foundation
package import FerrySQLite
public import Logging

/// An opened store: its SQLite file, created or checked against the model, behind one writer connection that
/// lives on a serial queue of its own.
///
/// Opening validates the model and creates the schema of a new store (or refuses a store made by another model).
/// Contexts (``ManagedObjectContext``, usually made by a ``PersistentContainer``) read and write through it;
/// fetch requests for IDs, counts and dictionaries can also run on it directly (see ``fetch(_:)``).
public final class PersistentStore: Sendable {
    /// How the store was described.
    public let description: PersistentStoreDescription
    /// The model's SQLite layout.
    public let schema: StoreSchema
    /// What the store records about itself.
    public let metadata: StoreMetadata
    /// The warnings the model gave when it was validated (such as a relationship without an inverse).
    public let modelWarnings: [ModelWarning]
    /// The connection that writes, on its own serial queue.
    package let writer: SerializedConnection
    /// Runs the writer's checkpoints, when the description asks for them in the background.
    let checkpointer: WALCheckpointer?
    /// Where each entity's properties live in managed objects.
    let layouts: ObjectLayouts
    /// Primary keys for new rows.
    package let primaryKeys = PrimaryKeyAllocator()
    /// Announces recorded history transactions (see ``historyNotifications``).
    let historyNotifier = HistoryNotifier()
    /// Announces each batch request's changes (see ``batchChanges``).
    let batchChangeNotifier = BatchChangeNotifier()
    /// Where values of attributes that allow external storage go; `nil` for an in-memory store or a model without
    /// such attributes (see `PersistentStore+Blobs.swift`).
    let blobFolder: BlobFolder?
    /// Lets tests simulate a crash between a blob file's write and the commit.
    package let blobFaults = BlobFaultInjection()
    /// Where the store reports what it does not throw (such as a failed removal of released blob files).
    let logger: Logger

    /// The store's identifier, part of every ``ObjectID`` it hands out.
    public var identifier: String { metadata.storeIdentifier }

    private init(
        description: PersistentStoreDescription, schema: StoreSchema, metadata: StoreMetadata,
        modelWarnings: [ModelWarning], writer: SerializedConnection, checkpointer: WALCheckpointer?, logger: Logger
    ) {
        self.description = description
        self.schema = schema
        self.metadata = metadata
        self.modelWarnings = modelWarnings
        self.writer = writer
        self.checkpointer = checkpointer
        self.layouts = ObjectLayouts(schema: schema)
        self.blobFolder = schema.usesExternalStorage ? BlobFolder(databasePath: description.sqlitePath) : nil
        self.logger = logger
    }

    deinit {
        // A checkpoint under way holds a connection: the writer must close last, to copy the rest of the log.
        checkpointer?.waitUntilIdle()
    }

    /// Opens (creating if needed) the store that `description` names, for `model`.
    ///
    /// A new store file appears whole: it is built under a temporary name beside its path and moved there once its
    /// schema and metadata are committed, so a process killed while it creates a store leaves no file at the path.
    /// A store described ``PersistentStoreDescription/isReadOnly`` must exist, and is only checked against `model`.
    ///
    /// - Throws: ``ModelError`` when the model is invalid; ``StoreError`` with
    ///   ``StoreError/Code/incompatibleModel`` when the store was created with another model,
    ///   ``StoreError/Code/notAFerryStore`` for a foreign SQLite file, ``StoreError/Code/fileNotFound`` for a
    ///   read-only store that does not exist, or ``StoreError/Code/openFailed``.
    public static func open(
        _ description: PersistentStoreDescription, model: ManagedObjectModel,
        logger: Logger = Logger(label: "ferry.store")
    ) async throws -> PersistentStore {
        let warnings = try model.validate()
        if description.isReadOnly {
            guard case .file(let path) = description.location else {
                throw StoreError(.openFailed, "an in-memory store cannot be opened read-only: it starts empty")
            }
            guard FileManager.default.fileExists(atPath: path) else {
                throw StoreError(.fileNotFound, "there is no store at this path to read", path: path)
            }
        } else if case .file(let path) = description.location {
            // A new store numbers its entities in model order; an existing one keeps its numbers (read below).
            let schema = StoreSchema(model: model)
            // File work with syncs: off the cooperative pool.
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { try createIfMissing(at: path, schema: schema) })
                }
            }
        }
        let writer: SerializedConnection
        let checkpointer: WALCheckpointer?
        do {
            writer = try SerializedConnection(
                path: description.sqlitePath, mode: description.isReadOnly ? .readOnly : .readWrite,
                busyTimeout: description.busyTimeout, label: "ferry.store.writer", logger: logger)
            checkpointer =
                description.checkpointsInBackground && description.location != .inMemory && !description.isReadOnly
                ? WALCheckpointer(
                    path: description.sqlitePath, thresholdPages: description.walAutoCheckpointPages ?? 1000,
                    synchronous: description.synchronous.rawValue, logger: logger)
                : nil
        } catch let error as SQLiteError {
            throw StoreError(
                .openFailed, "cannot open the store", path: description.sqlitePath, underlying: error)
        }
        let (metadata, schema) = try await writer.run { connection in
            try connection.execute("PRAGMA synchronous = \(description.synchronous.rawValue)")
            if let cache = description.cacheSizeKiB { try connection.execute("PRAGMA cache_size = -\(max(cache, 1))") }
            if let checkpointer {
                checkpointer.attach(to: connection)
            } else if let pages = description.walAutoCheckpointPages {
                try connection.execute("PRAGMA wal_autocheckpoint = \(max(pages, 0))")
            }
            try PersistentStore.registerSQLFunctions(on: connection)
            let schema = try StoreSchema(model: model, entityIDs: StoreSchema.storedEntityIDs(on: connection))
            // A read-only store is checked, and otherwise left as it is.
            if description.isReadOnly { return (try StoreMetadata.readChecked(connection, schema: schema), schema) }
            let metadata = try StoreMetadata.prepare(connection, schema: schema)
            if description.recordsHistory { try HistoryTables.create(on: connection, path: description.sqlitePath) }
            try PersistentStore.prepareBlobs(on: connection, schema: schema, logger: logger)
            return (metadata, schema)
        }
        for warning in ModelWarningLog.takeUnlogged(warnings) { logger.warning("\(warning)") }
        return PersistentStore(
            description: description, schema: schema, metadata: metadata, modelWarnings: warnings, writer: writer,
            checkpointer: checkpointer, logger: logger)
    }

    /// Runs a fetch request for object IDs, a count or dictionaries (a request for managed objects gives their
    /// object IDs here; contexts turn them into objects).
    ///
    /// - Throws: ``FetchRequestError`` for a request that does not fit the model, ``StoreError`` from SQLite.
    public func fetch(_ request: FetchRequest) async throws -> FetchResult {
        let schema = self.schema
        let identifier = self.identifier
        return try await writer.run { connection in
            try FetchExecutor(connection: connection, schema: schema, storeIdentifier: identifier).execute(request)
        }
    }
}
