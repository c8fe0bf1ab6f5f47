import FerryIO
import FerryStore
import Foundation
import Logging

/// One run of an import step, in named phases: ``begin(_:name:ledger:resume:importer:)`` finds what to resume, records the
/// run in the ledger and plans it; ``load(stop:progress:)`` commits the chunks, finishes the load (deferred indexes,
/// full sync, rejects file) and records how the run ended, which ``fail(_:)`` does when it fails.
final class ImportRun {
    let importer: Importer
    let spec: ImportSpec
    let name: String
    let ledger: RunLedger
    /// The run's number in the ledger.
    let id: Int64
    /// The run this one continues, if it resumes one.
    let resumed: RunLedger.Run?
    /// The runs this one continues, newest first.
    let priorRuns: [Int64]
    let started: ContinuousClock.Instant
    let plan: ImportPlan
    /// The history author of the run's writes.
    let author: String
    /// The table whose indexes the run deferred, if it did.
    let deferredTable: String?
    let writer: any ChunkWriter
    let channel: ChunkChannel
    let producer: ChunkProducer
    /// The inputs' SHA-256, computed beside the import and recorded as soon as known.
    let digests: Task<[InputDigest], any Error>
    /// What the run had committed before this process took it on: all a replace that fails leaves in the ledger.
    let committedBefore: StepCounts
    var counts: StepCounts
    /// The number the next reject gets in the ledger.
    var rejectCount: Int
    var status = RunLedger.Status.failed
    var rejectsPath: String?
    /// The rejects of a chunk refused for breaking the reject limit: not committed, but written to the rejects file,
    /// which must show what stopped the run.
    var uncommittedRejects: [RejectedRecord] = []
    /// Whether a replace rolled back, its rejects file already written.
    var rolledBack = false
    /// The input columns (then JSON fields) nothing reads.
    var unreadColumns: [String]

    /// This run and the ones it continues: whose rejects and seen keys are the step's.
    var runs: [Int64] { priorRuns + [id] }

    private init(
        importer: Importer, spec: ImportSpec, name: String, ledger: RunLedger, id: Int64, resumed: RunLedger.Run?,
        resumeAt: Checkpoint?, started: ContinuousClock.Instant, plan: ImportPlan, counts: StepCounts,
        digests: Task<[InputDigest], any Error>, unreadColumns: [String]
    ) async throws {
        self.importer = importer
        self.spec = spec
        self.name = name
        self.ledger = ledger
        self.id = id
        self.resumed = resumed
        self.priorRuns = resumed.map { [$0.id] + $0.resumedRuns } ?? []
        self.started = started
        self.plan = plan
        self.counts = counts
        self.committedBefore = counts
        self.rejectCount = counts.rejected
        self.digests = digests
        self.unreadColumns = unreadColumns
        author = "ferry import \(name) #\(id)"
        let deferredTable = try await importer.deferIndexes(spec, plan: plan, run: id)
        self.deferredTable = deferredTable
        let store = importer.container.persistentStore
        writer =
            spec.mode == .batch
            ? BatchChunkWriter(store: store, plan: plan, author: author)
            : ContextChunkWriter(
                container: importer.container, plan: plan, author: author,
                insertsEveryRecord: deferredTable != nil || plan.isKeyless)
        channel = ChunkChannel(capacity: 0)
        // Rows go in key order when the writer allows it, except while the table's indexes are deferred (there is
        // no index to walk).
        producer = ChunkProducer(
            plan: plan, channel: channel, resumeAt: resumeAt,
            recordsPerChunk: spec.recordsPerChunk(deferringIndexes: deferredTable != nil),
            ordersRowsByKey: writer.takesRowsInKeyOrder && deferredTable == nil && !plan.isKeyless)
    }

    deinit { channel.cancel() }

    // MARK: Phases

    /// The first phase: leftovers of earlier runs finished (deferred indexes, dead runs marked) unless the caller's
    /// `ledger` had them finished, the run to resume found and its inputs checked, the new run recorded with its
    /// inputs' identity, and its plan made.
    ///
    /// - Throws: ``PipelineError`` `.cannotResume`, `.invalidSpec`; what reading the ledger or an input throws.
    static func begin(
        _ spec: ImportSpec, name: String, ledger prepared: RunLedger?, resume: Importer.Resumption, importer: Importer
    ) async throws -> ImportRun {
        let started = ContinuousClock.now
        let logger = importer.logger
        let ledger: RunLedger
        if let prepared {
            ledger = prepared
        } else {
            ledger = try await RunLedger(store: importer.container.persistentStore)
            try await ledger.finishDeferredIndexes(logger: logger)
            try await importer.markEndedRunsKilled(ledger)
        }
        var resumed: RunLedger.Run?
        if resume != .no, let previous = try await ledger.resumableRun(of: name) {
            try Importer.checkInputsUnchanged(spec.sources, since: previous, name: name)
            resumed = previous
            let at = previous.checkpoint
            logger.info(
                "resuming run \(previous.id) of \(name) at input \((at?.input ?? 0) + 1), record \((at?.records ?? 0) + 1)"
            )
        } else if resume == .required {
            throw PipelineError(
                .cannotResume, "nothing to resume: the latest run of '\(name)' finished (or there is none)")
        }
        // What identifies the inputs is recorded with the run, before any chunk commits; their SHA-256 takes a pass
        // over each file: it runs beside the import and is recorded as soon as it is known.
        let identities = try spec.sources.map(Importer.identity)
        let id = try await ledger.start(pipeline: name, inputs: identities, resuming: resumed?.id)
        let digests = Task.detached { [logger] in
            let digests = try Importer.digests(of: identities, logger: logger)
            try await ledger.record(inputs: digests, of: id)
            return digests
        }
        let resumeAt = resumed?.checkpoint
        let planned = resumeAt?.input ?? 0
        let inputColumns = try spec.header(ofInput: planned)
        let plan = try ImportPlan(
            spec: spec, model: importer.container.model, inputColumns: inputColumns,
            storesMemberNames: MemberNameColumn.isStored(in: spec, input: planned, header: inputColumns)
        ).withConstants(runID: id, runTime: Date().timeIntervalSince1970)
        let unreadColumns = plan.unreadColumns(of: inputColumns ?? [])
        importer.warnUnread(unreadColumns, of: name)
        return try await ImportRun(
            importer: importer, spec: spec, name: name, ledger: ledger, id: id, resumed: resumed, resumeAt: resumeAt,
            started: started, plan: plan, counts: resumed?.counts ?? StepCounts(), digests: digests,
            unreadColumns: unreadColumns)
    }

    /// The second phase: the chunks read and committed (in one enclosing transaction for a replace), the load
    /// finished, and the run recorded as succeeded; or, when anything fails, as failed (``fail(_:)``).
    ///
    /// - Throws: ``PipelineError`` (`.tooManyRejects`, `.conflict`, `.interrupted`), ``FerryIOError``,
    ///   ``StoreError``.
    func load(stop: StopSignal?, progress: (@Sendable (ImportProgress) -> Void)?) async throws -> ImportResult {
        producer.start()
        do {
            if spec.replacesRows {
                counts.deleted = try await importer.replaceRows(
                    of: spec.entity, author: author, committing: { try await commitChunks(stop: stop, progress: progress) }
                ) {
                    // The rejects so far, while the ledger still holds them: the rollback takes them away.
                    rejectsPath = try? await writeRejects(adding: uncommittedRejects)
                    rolledBack = true
                    counts = committedBefore
                }
            } else {
                try await commitChunks(stop: stop, progress: progress)
            }
            try await finishLoad()
        } catch {
            await fail(error)
            throw error
        }
        return try await succeed()
    }

    /// Commits every chunk the producer reads, each with its checkpoint, counts and rejects.
    private func commitChunks(stop: StopSignal?, progress: (@Sendable (ImportProgress) -> Void)?) async throws {
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
                throw Importer.tooManyRejects(counts.rejected + chunk.rejects.count, of: counts.read + chunk.read, limit)
            }
            let (before, firstReject, maxRejects) = (counts, rejectCount, spec.maxRejects)
            let (ledger, id) = (self.ledger, self.id)
            // The reader's next chunk as soon as it is read, for a writer that starts on it while this one commits;
            // otherwise the reader waits with it, and no third chunk is read into memory.
            let channel = self.channel
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
                    // The limit is checked here, inside the chunk's transaction, once every reason to refuse a record
                    // is known (an unresolved relationship, a refused row, a failed validation): throwing rolls the
                    // whole chunk back.
                    if let limit = maxRejects, limit.isExceeded(rejected: total.rejected, read: total.read) {
                        let reached = Importer.RejectLimitReached(
                            limit: limit, counts: total, rejects: outcome.rejects)
                        return { _ in throw reached }
                    }
                    return ledger.checkpointCompanion(
                        run: id, checkpoint: checkpoint, counts: total, rejects: outcome.rejects,
                        firstRejectNumber: firstReject, seenKeys: seenKeys)
                }
            } catch let reached as Importer.RejectLimitReached {
                uncommittedRejects = reached.rejects
                throw Importer.tooManyRejects(reached.counts.rejected, of: reached.counts.read, reached.limit)
            }
            counts.add(outcome.counts)
            rejectCount += outcome.rejects.count
            channel.recycle(chunk.rows)
            _ = consume chunk
            progress?(ImportProgress(inputPath: inputPath, bytesRead: bytesRead, counts: counts))
            if let upcoming { next = try await upcoming.value } else { next = try await channel.next() }
        }
    }

    /// After the last chunk: the deferred indexes built, a full sync's deletions, the rejects file, and the rows in
    /// the store file on disk.
    private func finishLoad() async throws {
        if let table = deferredTable {
            try await importer.buildIndexes(of: table, deferredBy: id, ledger: ledger, counts: &counts)
        }
        if let sync = spec.fullSync {
            counts.deleted = try await FullSyncer(
                store: importer.container.persistentStore, plan: plan, sync: sync, runs: [id] + priorRuns,
                author: author
            ).run()
            try await ledger.forgetSeenKeys(ofRuns: [id] + priorRuns)
        }
        // Written before the run is marked succeeded: a run killed before that is resumable, and its resume writes the
        // file; once the ledger says succeeded, the file is there.
        rejectsPath = try await writeRejects()
        // The rows in the store file, on disk, before the ledger says succeeded (a full disk fails here).
        try await importer.container.persistentStore.checkpoint()
        status = .succeeded
    }

    /// Records a run that failed with `error`: the deferred indexes built (so the store is whole again; if this fails
    /// too, the next run builds them), the ledger's row, and the rejects file.
    private func fail(_ error: any Error) async {
        if let table = deferredTable {
            try? await importer.buildIndexes(of: table, deferredBy: id, ledger: ledger, counts: &counts)
        }
        let seconds = (ContinuousClock.now - started).seconds
        _ = try? await digests.value
        try? await ledger.finish(run: id, status: status, counts: counts, seconds: seconds)
        if !rolledBack { _ = try? await writeRejects(adding: uncommittedRejects) }
    }

    /// Records the run as succeeded and reports it.
    private func succeed() async throws -> ImportResult {
        // A JSON input's fields are known once its records are read; so are the headers of standard input and of
        // inputs after the first.
        let unreadFields = (producer.unreadHeaderColumns + producer.unreadFields.names).reduce(into: [String]()) {
            if !unreadColumns.contains($1) && !$0.contains($1) { $0.append($1) }
        }
        importer.warnUnread(unreadFields, of: name)
        unreadColumns += unreadFields
        let properties = Set(plan.propertyNames)
        let discarded = unreadColumns.filter { ImportPlan.isNew($0, known: properties) }.count
        let discardedColumns = spec.schema == .discardColumns && discarded > 0 ? discarded : nil
        let inputs = try await digests.value
        let seconds = (ContinuousClock.now - started).seconds
        try await ledger.finish(run: id, status: .succeeded, counts: counts, seconds: seconds)
        if counts.kept > 0 && spec.namedMergePolicy == nil {
            let kept = counts.kept
            importer.logger.warning(
                "\(name): \(kept) records kept the stored values although theirs differ (the default merge policy, store-trump, keeps stored rows); to update them, set mergePolicy: objectTrump (ferry import: --merge-policy object-trump), or name the policy to keep them without this warning"
            )
        }
        return ImportResult(
            run: id, entity: spec.entity, counts: counts, seconds: seconds, rejectsPath: rejectsPath, inputs: inputs,
            resumed: resumed != nil, unreadColumns: unreadColumns, discardedColumns: discardedColumns,
            appended: plan.isKeyless && !spec.replacesRows ? true : nil, replaced: spec.replacesRows ? true : nil)
    }

    /// Writes the rejects of the step's runs (and `extra`, not committed) to its rejects file.
    private func writeRejects(adding extra: [RejectedRecord] = []) async throws -> String? {
        try await importer.writeRejects(
            spec, ledger: ledger, runs: runs, columns: producer.firstColumnNames, adding: extra)
    }
}
