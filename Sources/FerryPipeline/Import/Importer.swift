import FerryIO
public import FerryStore
import Foundation
public import Logging

/// Runs import steps: records stream from the inputs in chunks, each chunk commits with its checkpoint in one
/// transaction, and parsing the next chunk overlaps with committing the current one.
///
/// ```swift
/// let importer = Importer(container: container)
/// var spec = ImportSpec(entity: "Product", sources: ["products.csv"])
/// spec.mode = .batch
/// let result = try await importer.run(spec, name: "products")
/// print(result.counts)       // read = inserted + updated + unchanged + kept + rejected
/// ```
///
/// Every record read is inserted, updated, unchanged, kept or rejected; rejects go to the ledger with their chunk and
/// to `rejectsPath` at the end. A run killed at any moment leaves the store holding exactly its committed chunks,
/// and `resume: true` continues after the last of them.
///
/// An import into an empty table under store-trump or rollback, in either mode, loads it with its indexes deferred
/// and builds them once the last chunk is in (see `PersistentStore/deferIndexes(ofEntity:owner:)`; in context
/// mode, `ContextChunkWriter/insertsEveryRecord`); a run that ends before the build leaves it to the next run on
/// the store, which does it first. The caller holds the store's lock (``StoreLock``; a ``BulkSession`` takes it):
/// two runs at once would build each other's indexes.
public struct Importer: Sendable {
    /// The container whose store receives the records.
    public let container: PersistentContainer
    let logger: Logger

    /// An importer into `container` (its stores loaded).
    public init(container: PersistentContainer, logger: Logger = Logger(label: "ferry.import")) {
        self.container = container
        self.logger = logger
    }

    /// Runs `spec` as the step `name` (the ledger's pipeline name).
    ///
    /// - Parameters:
    ///   - spec: the import step.
    ///   - name: the step's name in the ledger.
    ///   - resume: continue the latest unfinished run of `name` after its last committed chunk.
    ///   - stop: checked between chunks; once raised, the run ends with nothing partial committed.
    ///   - progress: called after each committed chunk.
    /// - Throws: ``PipelineError`` (`.invalidSpec`, `.tooManyRejects`, `.conflict`, `.cannotResume`,
    ///   `.interrupted`), `FerryIOError` for unreadable or malformed input, `StoreError`.
    public func run(
        _ spec: ImportSpec, name: String, resume: Bool = false, stop: StopSignal? = nil,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) async throws -> ImportResult {
        try await run(spec, name: name, resume: resume ? .required : .no, stop: stop, progress: progress)
    }

    /// Whether a run continues the step's latest unfinished run.
    enum Resumption {
        /// A new run from the first record.
        case no
        /// Continue the latest unfinished run; there must be one.
        case required
        /// Continue the latest unfinished run if there is one (a pipeline run with `--resume`, whose finished steps
        /// run again).
        case ifUnfinished
    }

    /// Runs `spec` as ``run(_:name:resume:stop:progress:)`` does. With `ledger`, the caller (a pipeline run) has
    /// already finished the leftovers of killed runs on it (deferred indexes, runs marked killed), once for all its
    /// steps.
    func run(
        _ spec: ImportSpec, name: String, ledger: RunLedger? = nil, resume: Resumption, stop: StopSignal?,
        progress: (@Sendable (ImportProgress) -> Void)?
    ) async throws -> ImportResult {
        try checkSchemaContract(of: spec)
        let run = try await ImportRun.begin(spec, name: name, ledger: ledger, resume: resume, importer: self)
        return try await run.load(stop: stop, progress: progress)
    }

    /// Checks `spec`'s inputs against its schema contract before anything is written (see ``SchemaContract``): under
    /// `freeze`, new columns fail the step; under `evolve`, they must have been added to the model when the store was
    /// opened (``StoreSettings/importsToEvolve``).
    ///
    /// - Throws: ``PipelineError`` `.schemaViolation` naming every new and every missing column; `.invalidSpec` when
    ///   the spec does not fit the model; ``FerryIOError`` when an input cannot be read.
    func checkSchemaContract(of spec: ImportSpec) throws {
        guard spec.schema == .freeze || spec.schema == .evolve,
            container.model.entity(named: spec.entity) != nil
        else { return }
        let drift = try SchemaDrift(spec: spec, model: container.model, typesNewColumns: false)
        guard drift.hasNewColumns else { return }
        if spec.schema == .freeze, let violation = drift.freezeViolation() { throw violation }
        throw PipelineError(
            .schemaViolation,
            "schema: evolve: the columns \(drift.newColumns.map(\.name).joined(separator: ", ")) are new to "
                + "\(spec.entity) and were not added to its model, which is added to when the store is opened for "
                + "the import (ferry run, ferry import, BulkSession with StoreSettings.importsToEvolve); nothing was "
                + "written")
    }

    /// Warns that no attribute reads the input columns (or JSON fields) `unread` of step `name`, if there are any.
    func warnUnread(_ unread: [String], of name: String) {
        guard !unread.isEmpty else { return }
        logger.warning(
            "\(name): no attribute reads the input columns \(unread.joined(separator: ", ")) (map them under fields, or check for a renamed column)"
        )
    }

    /// Defers the indexes of the table `spec` loads when it is empty and the load qualifies (see
    /// ``PersistentStore/deferIndexes(ofEntity:owner:)``): a stored key wins (store-trump or rollback), and no
    /// relationship is resolved against that same table (a key found there could be a row the build deletes).
    /// Returns the table, or `nil`.
    func deferIndexes(_ spec: ImportSpec, plan: ImportPlan, run: Int64) async throws -> String? {
        guard !plan.isKeyless, spec.mergePolicy == .mergeByPropertyStoreTrump || spec.mergePolicy == .rollback
        else { return nil }
        let table = container.model.rootEntity(of: spec.entity)
        for column in plan.columns {
            if case .relationshipKey(_, let relationship) = column.source, relationship.destinationTable == table {
                return nil
            }
        }
        let deferred = try await container.persistentStore.deferIndexes(
            ofEntity: spec.entity, owner: RunLedger.indexOwner(run: run))
        if deferred { logger.info("\(table) is empty: its indexes are built once the load ends") }
        return deferred ? table : nil
    }

    /// Builds the indexes `run` deferred; the rows the build deletes (a repeated key) become unchanged records, or kept
    /// ones when their values differed from the row kept.
    func buildIndexes(of table: String, deferredBy run: Int64, ledger: RunLedger, counts: inout StepCounts)
        async throws
    {
        let removed = try await container.persistentStore.buildDeferredIndexes(
            ofTable: table, removing: ledger.duplicatesCompanion(run: run))
        counts.inserted -= removed.count
        counts.unchanged += removed.count - removed.differing
        counts.kept += removed.differing
    }

    /// What a chunk's companion throws when the chunk would take the run over its reject limit, rolling the chunk
    /// back: the run's counts and the chunk's rejects with it.
    struct RejectLimitReached: Error {
        var limit: RejectLimit
        var counts: StepCounts
        var rejects: [RejectedRecord]
    }

    static func tooManyRejects(_ rejected: Int, of read: Int, _ limit: RejectLimit) -> PipelineError {
        let allowed =
            switch limit {
            case .count(let count): "at most \(count)"
            case .rate(let rate): "at most \(rate * 100)% of the records"
            }
        return PipelineError(
            .tooManyRejects,
            "\(rejected) of \(read) records rejected, over the limit (\(allowed)); stopped with nothing further "
                + "committed")
    }

    /// Writes the rejects of `runs` (and `extra`, not committed) to the spec's rejects file; returns its path when
    /// there were any.
    @discardableResult
    func writeRejects(
        _ spec: ImportSpec, ledger: RunLedger, runs: [Int64], columns: [String]?, adding extra: [RejectedRecord] = []
    ) async throws -> String? {
        guard let path = spec.rejectsPath else { return nil }
        let rejects = try await ledger.rejects(ofRuns: runs) + extra
        guard !rejects.isEmpty else {
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
        let format =
            RecordFormat(inferringFrom: path) ?? spec.format ?? spec.sources.first.flatMap(
                RecordFormat.init(inferringFrom:)) ?? .csv
        let csvInput =
            (spec.format ?? spec.sources.first.flatMap(RecordFormat.init(inferringFrom:)))?.defaultDialect != nil
        try RejectsFileWriter.write(rejects, to: path, format: format, columns: csvInput ? columns : nil)
        logger.info("\(rejects.count) rejected records written to \(path)")
        return path
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
