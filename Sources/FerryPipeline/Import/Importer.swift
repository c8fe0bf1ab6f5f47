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
/// the store, which does it first. The caller holds the store's lock (``StoreLock``): two runs at once would build
/// each other's indexes.
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
        let started = ContinuousClock.now
        let store = container.persistentStore
        let ledger = try await RunLedger(store: store)
        try await ledger.finishDeferredIndexes(logger: logger)
        try await markEndedRunsKilled(ledger)
        var resumeAt: Checkpoint?
        var counts = StepCounts()
        var resumed: RunLedger.Run?
        if resume {
            guard let previous = try await ledger.resumableRun(of: name) else {
                throw PipelineError(
                    .cannotResume, "nothing to resume: the latest run of '\(name)' finished (or there is none)")
            }
            try Self.checkInputsUnchanged(spec.sources, since: previous, name: name)
            resumeAt = previous.checkpoint
            counts = previous.counts
            resumed = previous
            logger.info(
                "resuming run \(previous.id) of \(name) at input \((resumeAt?.input ?? 0) + 1), record \((resumeAt?.records ?? 0) + 1)"
            )
        }
        // What identifies the inputs is recorded with the run, before any chunk commits; their SHA-256 takes a pass
        // over each file: it runs beside the import and is recorded as soon as it is known.
        let identities = try spec.sources.map(Self.identity)
        let run = try await ledger.start(pipeline: name, inputs: identities, resuming: resumed?.id)
        let priorRuns = resumed.map { [$0.id] + $0.resumedRuns } ?? []
        let digests = Task.detached { [logger] in
            let digests = try Self.digests(of: identities, logger: logger)
            try await ledger.record(inputs: digests, of: run)
            return digests
        }
        let planned = resumeAt?.input ?? 0
        let inputColumns = try spec.header(ofInput: planned)
        let plan = try ImportPlan(
            spec: spec, model: container.model, inputColumns: inputColumns,
            storesMemberNames: MemberNameColumn.isStored(in: spec, input: planned, header: inputColumns)
        ).withConstants(runID: run, runTime: Date().timeIntervalSince1970)
        var unreadColumns = plan.unreadColumns(of: inputColumns ?? [])
        warnUnread(unreadColumns, of: name)
        let author = "ferry import \(name) #\(run)"
        let deferredTable = try await deferIndexes(spec, plan: plan, run: run)
        let writer: any ChunkWriter =
            spec.mode == .batch
            ? BatchChunkWriter(store: store, plan: plan, author: author)
            : ContextChunkWriter(
                container: container, plan: plan, author: author,
                insertsEveryRecord: deferredTable != nil || plan.isKeyless)
        let channel = ChunkChannel(capacity: 0)
        // Rows go in key order when the writer allows it, except while the table's indexes are deferred (there is
        // no index to walk).
        let producer = ChunkProducer(
            plan: plan, channel: channel, resumeAt: resumeAt,
            ordersRowsByKey: writer.takesRowsInKeyOrder && deferredTable == nil && !plan.isKeyless)
        producer.start()
        var rejectCount = counts.rejected
        var status = RunLedger.Status.failed
        var rejectsPath: String?
        // The rejects of a chunk refused for breaking the reject limit: not committed, but written to the rejects
        // file, which must show what stopped the run.
        var uncommittedRejects: [RejectedRecord] = []
        defer { channel.cancel() }
        // What the run had committed before this process took it on: all a replace that fails leaves in the ledger.
        let committedBefore = counts
        // Whether a replace rolled back, its rejects file already written.
        var rolledBack = false
        // Commits every chunk the producer reads, each with its checkpoint, counts and rejects.
        func commitChunks() async throws {
            var next = try await channel.next()
            while let chunk = next {
                // Only `chunk` holds this chunk from here on, and it lets go of it before the next one is taken.
                next = nil
                if let why = stop?.raised {
                    status = .interrupted
                    throw PipelineError(
                        .interrupted,
                        "stopped by \(why) after \(counts.read) records; nothing partial was committed; run again "
                            + "with --resume to continue")
                }
                if let limit = spec.maxRejects,
                    limit.isExceeded(rejected: counts.rejected + chunk.rejects.count, read: counts.read + chunk.read)
                {
                    uncommittedRejects = chunk.rejects
                    throw Self.tooManyRejects(
                        counts.rejected + chunk.rejects.count, of: counts.read + chunk.read, limit)
                }
                let before = counts
                let firstReject = rejectCount
                // The reader's next chunk as soon as it is read, for a writer that starts on it while this one
                // commits; otherwise the reader waits with it, and no third chunk is read into memory.
                let upcoming = writer.looksAhead ? Task { try await channel.next() } : nil
                let (checkpoint, seenKeys) = (chunk.checkpoint, chunk.seenKeys)
                let (inputPath, bytesRead) = (chunk.inputPath, chunk.bytesRead)
                let outcome: ChunkOutcome
                do {
                    outcome = try await writer.commit(chunk, upcoming: upcoming) { outcome in
                        // The cumulative counts, row counts included, commit with the chunk: a run killed after it
                        // resumes with counts that still balance.
                        var total = before
                        total.add(outcome.counts)
                        // The limit is checked here, inside the chunk's transaction, once every reason to refuse a
                        // record is known (an unresolved relationship, a refused row, a failed validation):
                        // throwing rolls the whole chunk back.
                        if let limit = spec.maxRejects, limit.isExceeded(rejected: total.rejected, read: total.read) {
                            let reached = RejectLimitReached(limit: limit, counts: total, rejects: outcome.rejects)
                            return { _ in throw reached }
                        }
                        return ledger.checkpointCompanion(
                            run: run, checkpoint: checkpoint, counts: total, rejects: outcome.rejects,
                            firstRejectNumber: firstReject, seenKeys: seenKeys)
                    }
                } catch let reached as RejectLimitReached {
                    uncommittedRejects = reached.rejects
                    throw Self.tooManyRejects(reached.counts.rejected, of: reached.counts.read, reached.limit)
                }
                counts.add(outcome.counts)
                rejectCount += outcome.rejects.count
                channel.recycle(chunk.rows)
                _ = consume chunk
                progress?(ImportProgress(inputPath: inputPath, bytesRead: bytesRead, counts: counts))
                if let upcoming { next = try await upcoming.value } else { next = try await channel.next() }
            }
        }
        do {
            if spec.replacesRows {
                counts.deleted = try await replaceRows(of: spec.entity, author: author, committing: commitChunks) {
                    // The rejects so far, while the ledger still holds them: the rollback takes them away.
                    rejectsPath = try? await writeRejects(
                        spec, ledger: ledger, runs: priorRuns + [run], columns: producer.firstColumnNames,
                        adding: uncommittedRejects)
                    rolledBack = true
                    counts = committedBefore
                }
            } else {
                try await commitChunks()
            }
            if let table = deferredTable {
                try await buildIndexes(of: table, deferredBy: run, ledger: ledger, counts: &counts)
            }
            if let sync = spec.fullSync {
                counts.deleted = try await FullSyncer(
                    store: store, plan: plan, sync: sync, runs: [run] + priorRuns, author: author
                ).run()
                try await ledger.forgetSeenKeys(ofRuns: [run] + priorRuns)
            }
            // Written before the run is marked succeeded: a run killed before that is resumable, and its resume
            // writes the file; once the ledger says succeeded, the file is there.
            rejectsPath = try await writeRejects(
                spec, ledger: ledger, runs: priorRuns + [run], columns: producer.firstColumnNames)
            // The rows in the store file, on disk, before the ledger says succeeded (a full disk fails here).
            try await store.checkpoint()
            status = .succeeded
        } catch {
            // Built even when the run failed, so the store is whole again; if this fails too, the next run builds them.
            if let table = deferredTable {
                try? await buildIndexes(of: table, deferredBy: run, ledger: ledger, counts: &counts)
            }
            let seconds = (ContinuousClock.now - started).seconds
            _ = try? await digests.value
            try? await ledger.finish(run: run, status: status, counts: counts, seconds: seconds)
            if !rolledBack {
                _ = try? await writeRejects(
                    spec, ledger: ledger, runs: priorRuns + [run], columns: producer.firstColumnNames,
                    adding: uncommittedRejects)
            }
            throw error
        }
        // A JSON input's fields are known once its records are read.
        let unreadFields = producer.unreadFields.names.filter { !unreadColumns.contains($0) }
        warnUnread(unreadFields, of: name)
        unreadColumns += unreadFields
        let inputs = try await digests.value
        let seconds = (ContinuousClock.now - started).seconds
        try await ledger.finish(run: run, status: .succeeded, counts: counts, seconds: seconds)
        if counts.kept > 0 && spec.namedMergePolicy == nil {
            let kept = counts.kept
            logger.warning(
                "\(name): \(kept) records kept the stored values although theirs differ (the default merge policy, store-trump, keeps stored rows); to update them, set mergePolicy: objectTrump (ferry import: --merge-policy object-trump), or name the policy to keep them without this warning"
            )
        }
        return ImportResult(
            run: run, entity: spec.entity, counts: counts, seconds: seconds, rejectsPath: rejectsPath, inputs: inputs,
            resumed: resumed != nil, unreadColumns: unreadColumns,
            appended: plan.isKeyless && !spec.replacesRows ? true : nil, replaced: spec.replacesRows ? true : nil)
    }

    /// Warns that no attribute reads the input columns (or JSON fields) `unread` of step `name`, if there are any.
    private func warnUnread(_ unread: [String], of name: String) {
        guard !unread.isEmpty else { return }
        logger.warning(
            "\(name): no attribute reads the input columns \(unread.joined(separator: ", ")) (map them under fields, or check for a renamed column)"
        )
    }

    /// Defers the indexes of the table `spec` loads when it is empty and the load qualifies (see
    /// ``PersistentStore/deferIndexes(ofEntity:owner:)``): a stored key wins (store-trump or rollback), and no
    /// relationship is resolved against that same table (a key found there could be a row the build deletes).
    /// Returns the table, or `nil`.
    private func deferIndexes(_ spec: ImportSpec, plan: ImportPlan, run: Int64) async throws -> String? {
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
    private func buildIndexes(of table: String, deferredBy run: Int64, ledger: RunLedger, counts: inout StepCounts)
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
    private struct RejectLimitReached: Error {
        var limit: RejectLimit
        var counts: StepCounts
        var rejects: [RejectedRecord]
    }

    private static func tooManyRejects(_ rejected: Int, of read: Int, _ limit: RejectLimit) -> PipelineError {
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
    private func writeRejects(
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
