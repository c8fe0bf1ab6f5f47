import FerrySQLite
public import FerryStore
import Foundation
public import Logging

/// A store held for bulk work: what a job needs to run safely on its own, which the `ferry` command and Swift
/// programs share. Opening one takes the store's lock (one run at a time per store; a second exits with
/// ``PipelineError`` `.storeLocked`), loads the store with the bulk settings (``StoreSettings``) and locks the store
/// file itself once it exists; its operations validate before they write, and end with the store's write-ahead log
/// copied into the file (a full disk fails the run rather than the closing).
///
/// ```swift
/// let file = try PipelineFileParser.parse(contentsOf: "Pipelines/demo.yml")
/// let report = try await BulkSession.run(file)
/// print(report.table)
/// ```
///
/// The lock is held while the session lives: keep it until the last operation returns, then ``close()`` it (or
/// run the work inside ``closing(after:)``), so the store's connection is closed before the process exits.
public final class BulkSession {
    /// The container, its store loaded.
    public let container: PersistentContainer
    /// Held for the session's life; released when it ends, or by the kernel when the process does.
    private let lock: StoreLock?
    let logger: Logger

    private init(container: PersistentContainer, lock: StoreLock?, logger: Logger) {
        self.container = container
        self.lock = lock
        self.logger = logger
    }

    /// Opens the store at `storePath` for writing: takes its lock, then loads it (creating it when missing, unless
    /// `createsStore` is false) with `model` or the model it keeps; `inferredModel` gives a new store's model when no
    /// model file is named.
    ///
    /// - Throws: ``PipelineError`` `.storeLocked` when another run holds the store; `ModelError` for a bad model
    ///   file; `StoreError` (`.fileNotFound` for a missing store without a model, `.incompatibleModel`…).
    public static func open(
        storePath: String, model: String? = nil, settings: StoreSettings = StoreSettings(), createsStore: Bool = true,
        inferredModel: (() throws -> ManagedObjectModel)? = nil, logger: Logger = Logger(label: "ferry")
    ) async throws -> BulkSession {
        guard createsStore || FileManager.default.fileExists(atPath: storePath) else {
            throw StoreError(.fileNotFound, "there is no store at this path", path: storePath)
        }
        let lock = try StoreLock(storePath: storePath)
        let container = try await settings.loadContainer(
            storePath: storePath, modelPath: model, inferredModel: inferredModel, logger: logger)
        try lock.lockStoreFile()
        return BulkSession(container: container, lock: lock, logger: logger)
    }

    /// Opens the existing store at `storePath` to read it (exports, snapshots, inspection): no lock is taken, as
    /// reads see one consistent snapshot while a run writes, and no store is ever created.
    ///
    /// The store is opened read-only (`PersistentStoreDescription.isReadOnly`), so it may sit where this process
    /// cannot write, unless `recordsInStore`: a session that records what it did in the store (an incremental
    /// export's position, a publish run) opens it for writing.
    ///
    /// - Throws: `StoreError` `.fileNotFound` when there is no store at `storePath`, `.openFailed` when
    ///   `recordsInStore` and the store or its folder cannot be written; as
    ///   ``open(storePath:model:settings:createsStore:inferredModel:logger:)``.
    public static func openForReading(
        storePath: String, model: String? = nil, recordsInStore: Bool = false, logger: Logger = Logger(label: "ferry")
    ) async throws -> BulkSession {
        guard FileManager.default.fileExists(atPath: storePath) else {
            throw StoreError(.fileNotFound, "there is no store at this path", path: storePath)
        }
        if recordsInStore, let unwritable = DatabaseFileAccess(path: storePath).unwritablePart {
            throw StoreError(
                .openFailed,
                "this session records what it does in the store (an incremental export's position, a publish run), "
                    + "and the store's \(unwritable) cannot be written by this user", path: storePath)
        }
        var settings = StoreSettings()
        settings.considersMigration = false
        settings.opensReadOnly = !recordsInStore
        let container = try await settings.loadContainer(
            storePath: storePath, modelPath: model, inferredModel: nil, logger: logger)
        return BulkSession(container: container, lock: nil, logger: logger)
    }

    /// Closes the store (see `PersistentStore.close()`): its write-ahead log is copied into the file and removed
    /// before this returns. The lock goes with the session.
    public func close() async {
        await container.persistentStore.close()
    }

    /// Runs `work` with this session, then closes it (``close()``), whether `work` returned or threw.
    ///
    /// ```swift
    /// let session = try await BulkSession.open(storePath: "catalog.sqlite")
    /// let result = try await session.closing { try await $0.importRecords(spec, name: "nightly") }
    /// ```
    ///
    /// - Throws: what `work` throws.
    public func closing<Value>(after work: (BulkSession) async throws -> Value) async throws -> Value {
        let value: Value
        do {
            value = try await work(self)
        } catch {
            await close()
            throw error
        }
        await close()
        return value
    }

    /// Imports `spec` as the step `name` (see ``Importer/run(_:name:resume:stop:progress:)``), then copies the
    /// write-ahead log into the store file.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` (an entity the model lacks among them) and what the import throws.
    public func importRecords(
        _ spec: ImportSpec, name: String, resume: Bool = false, stop: StopSignal? = nil,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) async throws -> ImportResult {
        let result = try await Importer(container: container, logger: logger).run(
            spec, name: name, resume: resume, stop: stop, progress: progress)
        // The ledger's last write in the store file too, so that closing has nothing left to fail on.
        try await container.persistentStore.checkpoint()
        return result
    }

    /// Exports what `spec` says from one consistent snapshot of the store (see ``Exporter``).
    ///
    /// - Throws: as ``Exporter/export(_:progress:)``.
    @discardableResult
    public func export(_ spec: ExportSpec, progress: (@Sendable (ExportProgress) -> Void)? = nil) async throws
        -> Exporter.Result
    {
        try await Exporter(store: container.persistentStore, logger: logger).export(spec, progress: progress)
    }

    /// Runs every step of `file` on this session's store, after checking every step against the model (nothing is
    /// written when one does not fit), then copies the write-ahead log into the store file.
    ///
    /// - Throws: ``PipelineFileError`` listing every problem; ``PipelineRunError`` (the report so far and the
    ///   failure) when a step fails.
    public func run(
        _ file: PipelineFile, resume: Bool = false, stop: StopSignal? = nil,
        progress: (@Sendable (StepProgress) -> Void)? = nil
    ) async throws -> PipelineReport {
        let issues = PipelineValidator.issues(in: file, model: container.model)
        guard issues.isEmpty else { throw PipelineFileError(issues: issues) }
        let report = try await PipelineRunner(file: file, container: container, logger: logger).run(
            resume: resume, stop: stop, progress: progress)
        // Every step's changes in the store file, so that closing has nothing left to fail on.
        try await container.persistentStore.checkpoint()
        return report
    }

    /// Runs the pipeline `file` on its store (`settings` for opening it): the whole job a cron line runs, as
    /// `ferry run` does. With `dryRun`, every step runs on a copy of the store in a temporary folder and writes
    /// its outputs there; the report says what would change, and nothing is kept.
    ///
    /// - Throws: as ``open(storePath:model:settings:createsStore:inferredModel:logger:)`` and ``run(_:resume:stop:progress:)``.
    public static func run(
        _ file: PipelineFile, settings: StoreSettings = StoreSettings(), dryRun: Bool = false, resume: Bool = false,
        stop: StopSignal? = nil, logger: Logger = Logger(label: "ferry"),
        progress: (@Sendable (StepProgress) -> Void)? = nil
    ) async throws -> PipelineReport {
        var file = file
        var settings = settings
        settings.recordsHistory = settings.recordsHistory || file.recordsHistory
        settings.migratesAutomatically = settings.migratesAutomatically && file.migratesAutomatically
        settings.migrationDateFormats = file.migrationDateFormats
        settings.migrationAppliedBy = "ferry run \(file.path)"
        settings.importsToEvolve = file.steps.compactMap { step in
            if case .importRecords(let spec) = step.action, spec.schema == .evolve { spec } else { nil }
        }
        // The real store's lock, held for a dry run too: its copy must not be taken while a run writes.
        let lock = try StoreLock(storePath: file.store)
        var scratch: URL?
        defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
        if dryRun {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-dry-run-\(getpid())")
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            scratch = folder
            file = try file.preparingDryRun(in: folder)
            logger.notice("dry run: working on a copy of the store; nothing will be kept")
        }
        let container = try await settings.loadContainer(
            storePath: file.store, modelPath: file.model, inferredModel: nil, logger: logger)
        try lock.lockStoreFile()
        return try await BulkSession(container: container, lock: lock, logger: logger).closing {
            try await $0.run(file, resume: resume, stop: stop, progress: progress)
        }
    }
}
