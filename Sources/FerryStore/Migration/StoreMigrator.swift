import FerrySQLite
import Foundation
public import Logging

/// Migrates a store file from the model it keeps to a new model, in place and with SQL, as Core Data's inferred
/// (lightweight) migration does, and a step further: widening type changes, a plan shown before anything runs, checks
/// of the data first, a violation policy for rows that break new rules, and crash safety (see ``MigrationPlan`` for
/// what a plan holds and ``migrate(to:options:)`` for the guarantees).
///
/// ```swift
/// let migrator = StoreMigrator(storePath: "catalog.sqlite")
/// let plan = try migrator.plan(to: try ManagedObjectModel.load(from: "catalog-v2.yml"))
/// print(plan.text)
/// if plan.isAutomatic { _ = try migrator.migrate(to: plan) }
/// ```
///
/// Works on the file directly, blocking the calling thread; call it before opening the store (and, from Swift
/// concurrency, off the cooperative pool). It takes no lock: callers that share a store with other runs take the
/// store's run lock first (the `ferry` command does).
public struct StoreMigrator: Sendable {
    /// The store file.
    public var storePath: String
    /// What migrated the store, as its history records it (a command, a program, a run).
    public var appliedBy: String
    /// Rows per transaction when a table is copied.
    public var chunkRows: Int
    /// When a table's values move between rows and blob files (an attribute's external storage changed), a chunk of
    /// the copy takes no more rows once the values it moves reach this many bytes (at least one row per chunk), so a
    /// chunk's transaction and the log it grows stay small however large the values; 64 MiB by default.
    public var chunkBytes = Self.defaultChunkBytes
    /// Where the migration logs; at debug level each statement with its duration.
    public var logger: Logger
    /// When an attribute newly allows external storage, its values larger than this many bytes move to blob files
    /// (as ``PersistentStoreDescription/externalStorageThreshold``; 128 KiB by default).
    public var externalStorageThreshold = PersistentStoreDescription.defaultExternalStorageThreshold
    /// The formats a text attribute turned date may be written in, tried in order for each value, as an import's
    /// `dateFormats` are (``DateFormat``); `[.iso8601]` by default. A value none of them reads does not convert.
    public var dateFormats: [DateFormat] = [.iso8601]

    /// The default of ``chunkBytes``: 64 MiB.
    public static let defaultChunkBytes = 64 << 20

    /// Creates a migrator for the store at `storePath`.
    public init(
        storePath: String, appliedBy: String? = nil, chunkRows: Int = 100_000,
        logger: Logger = Logger(label: "ferry.migration")
    ) {
        self.storePath = storePath
        self.appliedBy = appliedBy ?? ModelHistory.defaultAppliedBy
        self.chunkRows = chunkRows
        self.logger = logger
    }

    /// Writes a consistent, compacted copy of the store to `path` (`VACUUM INTO`), without opening it as a store
    /// (its model may not be the one this program has): a place to try a migration on the store's data.
    ///
    /// - Throws: ``StoreError`` `.sqlite` when SQLite cannot read the store or write the copy.
    public func copyStore(to path: String) throws {
        do {
            try Connection(path: storePath, mode: .readOnly).copyDatabase(to: path)
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "cannot copy the store to \(path)", path: storePath, underlying: error)
        }
    }

    /// The model the store keeps (the model it is at).
    ///
    /// - Throws: ``StoreError`` as ``PersistentStore/storedModel(at:)``.
    public func storedModel() throws -> ManagedObjectModel {
        try PersistentStore.storedModel(at: storePath)
    }

    /// Plans the migration to `model` without changing the store: each step with its cost, and the checks of the
    /// data (nulls that need a value, duplicate keys of new constraints) judged by `policy`.
    ///
    /// - Throws: ``MigrationError`` `.notInferable` naming a change that cannot be inferred; ``ModelError`` for an
    ///   invalid model; ``StoreError`` when the store cannot be read.
    public func plan(to model: ManagedObjectModel, policy: ViolationPolicy = .fail) throws -> MigrationPlan {
        _ = try model.validate()
        let connection = try open(mode: .readOnly)
        return try wrapped("plan the migration") {
            // The checks count the values that do not convert with the conversions' own functions.
            try PersistentStore.registerSQLFunctions(on: connection)
            let source = try PersistentStore.storedModel(on: connection)
            let schema = try StoreSchema(model: source, entityIDs: StoreSchema.storedEntityIDs(on: connection))
            var planner = MigrationPlanner(source: schema, model: model, connection: connection, policy: policy)
            planner.externalStorageThreshold = externalStorageThreshold
            planner.dateFormats = dateFormats.isEmpty ? [.iso8601] : dateFormats
            return try planner.plan()
        }
    }

    /// Runs a plan made by ``plan(to:policy:)``.
    ///
    /// Whenever the process stops, the store is at its old model or the new one, never between: tables that must be
    /// copied are filled beside the old ones in chunks (a later run goes on from the last chunk), values that move
    /// between rows and blob files move chunk by chunk as their table is copied, and everything else, the swap
    /// included, happens in one transaction. Meanwhile the store refuses to be opened for other work
    /// (``StoreError/Code/migrationInProgress``). After it: the integrity of the tables written is checked, the
    /// history holds one entry for the migration with the row counts before and after, and rows the violation
    /// policy removed are in `ferry_migration_rejects` with their reason.
    ///
    /// - Parameter allowsDestructiveChanges: whether steps that remove data may run.
    /// - Throws: ``MigrationError`` `.dataViolation` when the plan is blocked by data, `.destructive` when it
    ///   removes data and that is not allowed; ``StoreError`` when SQLite fails (the store stays at its old model).
    @discardableResult
    public func migrate(to plan: MigrationPlan, allowsDestructiveChanges: Bool = false) throws -> MigrationResult {
        try migrate(to: plan, allowsDestructiveChanges: allowsDestructiveChanges, afterChunk: nil)
    }

    /// ``migrate(to:allowsDestructiveChanges:)`` that calls `afterChunk` after each chunk of a table copy is
    /// committed, with the table and the rows copied so far, and `afterBlobFile` after each value moved between a row
    /// and a blob file, inside its chunk, with the column and the values moved so far (crash trials stop there).
    @discardableResult
    package func migrate(
        to plan: MigrationPlan, allowsDestructiveChanges: Bool, afterChunk: ((String, Int) throws -> Void)?,
        afterBlobFile: ((String, Int) throws -> Void)? = nil
    ) throws -> MigrationResult {
        if plan.isBlocked {
            throw MigrationError(
                .dataViolation, "the store's data block the migration:\n\(plan.text)", path: storePath, plan: plan)
        }
        if plan.isDestructive && !allowsDestructiveChanges {
            throw MigrationError(
                .destructive,
                "the migration removes data; run it with --allow-destructive (allowsDestructiveChanges) if that is "
                    + "meant:\n\(plan.text)", path: storePath, plan: plan)
        }
        let connection = try open(mode: .readWrite)
        return try wrapped("migrate the store") {
            try PersistentStore.registerSQLFunctions(on: connection)
            let current = try StoreMetadata.read(connection)?.modelHash
            guard current == plan.sourceHash else {
                throw MigrationError(
                    .missingSourceModel,
                    "the store is at model \(current?.prefix(12) ?? "?"), not \(plan.sourceHash.prefix(12)) as the "
                        + "plan expects; plan again", path: storePath)
            }
            var executor = MigrationExecutor(
                connection: connection, plan: plan, appliedBy: appliedBy, chunkRows: chunkRows, logger: logger)
            executor.chunkBytes = max(chunkBytes, 1)
            executor.afterChunk = afterChunk
            executor.afterBlobFile = afterBlobFile
            return try executor.run()
        }
    }

    /// Plans the migration to `model` and runs it.
    ///
    /// - Throws: as ``plan(to:policy:)`` and ``migrate(to:allowsDestructiveChanges:)``.
    @discardableResult
    public func migrate(
        to model: ManagedObjectModel, policy: ViolationPolicy = .fail, allowsDestructiveChanges: Bool = false
    ) throws -> MigrationResult {
        try migrate(to: plan(to: model, policy: policy), allowsDestructiveChanges: allowsDestructiveChanges)
    }

    /// Removes the blob files no row refers to, and temporary ones: what a migration stopped after its commit but
    /// before its own sweep left (the migration is done; this finishes its clean-up). Nothing happens for a store
    /// without `ferry_blobs`, or while a migration is under way (its files are not yet counted).
    ///
    /// - Returns: the files removed, by relative path.
    /// - Throws: ``StoreError`` `.blobFileFailed` when a file cannot be removed, `.sqlite`.
    @discardableResult
    public func sweepBlobFolder() throws -> [String] {
        guard let folder = BlobFolder(databasePath: storePath) else { return [] }
        let connection = try open(mode: .readWrite)
        return try wrapped("sweep the blob folder") {
            guard try PersistentStore.hasBlobTable(connection), try StoreMigrationState.read(connection) == nil else {
                return []
            }
            let report = try PersistentStore.sweepBlobs(in: folder, on: connection)
            return report.removedFiles + report.removedTemporaryFiles
        }
    }

    private func open(mode: Connection.Mode) throws -> Connection {
        guard FileManager.default.fileExists(atPath: storePath) else {
            throw StoreError(.fileNotFound, "no such store file", path: storePath)
        }
        do {
            return try Connection(path: storePath, mode: mode, logger: logger)
        } catch let error as SQLiteError {
            throw StoreError(.openFailed, "cannot open the store to migrate it", path: storePath, underlying: error)
        }
    }

    /// Runs `body`, turning SQLite's errors into store errors that say what was being done.
    private func wrapped<Result>(_ doing: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "cannot \(doing)", path: storePath, underlying: error)
        }
    }
}
