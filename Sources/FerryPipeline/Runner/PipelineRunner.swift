public import FerryStore
import Foundation
public import Logging

/// Runs a pipeline file's steps in order on one store: imports (each resumable), batch updates and deletes,
/// exports and snapshots. The caller holds the store's lock (``StoreLock``) and opens its container.
///
/// ```swift
/// let file = try PipelineFileParser.parse(contentsOf: "Pipelines/demo.yml")
/// let report = try await PipelineRunner(file: file, container: container).run()
/// print(report.table)
/// ```
public struct PipelineRunner: Sendable {
    public let file: PipelineFile
    public let container: PersistentContainer
    let logger: Logger

    /// A runner of `file` on `container`'s store (loaded).
    public init(file: PipelineFile, container: PersistentContainer, logger: Logger = Logger(label: "ferry.run")) {
        self.file = file
        self.container = container
        self.logger = logger
    }

    /// Runs every step; `resume` continues each import step's unfinished run (finished steps run again and
    /// change nothing).
    ///
    /// - Throws: the first step's failure (``PipelineError``, `StoreError`, `FerryIOError`…), after the steps
    ///   before it committed; `report` in the error's ``PipelineRunError`` says what ran.
    public func run(
        resume: Bool = false, stop: StopSignal? = nil, progress: (@Sendable (StepProgress) -> Void)? = nil
    ) async throws -> PipelineReport {
        let started = ContinuousClock.now
        var report = PipelineReport(pipeline: file.path, store: file.store)
        let ledger: RunLedger
        let number: Int64
        do {
            ledger = try await RunLedger(store: container.persistentStore)
            // An import killed before building the indexes it deferred left them to whoever writes next.
            try await ledger.finishDeferredIndexes(logger: logger)
            try await ledger.markEndedRunsKilled()
            number = try await ledger.start(pipeline: fileName, kind: "pipeline")
        } catch {
            throw PipelineRunError(report: report, underlying: error)
        }
        report.run = number
        // Every import step's schema contract is checked before the first step writes.
        for step in file.steps {
            guard case .importRecords(let spec) = step.action else { continue }
            do {
                try Importer(container: container, logger: logger).checkSchemaContract(of: spec)
            } catch {
                report.status = "failed at \(step.name)"
                report.failedStep = step.name
                try? await ledger.finish(run: number, status: .failed, counts: StepCounts(), seconds: 0)
                throw PipelineRunError(report: report, underlying: error)
            }
        }
        let outputs = OutputPathValues(date: Date(), run: number)
        var totals = StepCounts()
        for step in file.steps {
            do {
                if let why = stop?.raised {
                    throw PipelineError(.interrupted, "stopped by \(why) before \(step.name)")
                }
                logger.info("step \(step.name)")
                let result = try await run(
                    step, ledger: ledger, outputs: outputs, resume: resume, stop: stop, progress: progress)
                // The run's counts are what it did to the store; the rows an export or publish read are not.
                if step.kind != "export" && step.kind != "publish" { totals.add(result.counts) }
                report.steps.append(result)
            } catch {
                report.status = "failed at \(step.name)"
                report.failedStep = step.name
                report.seconds = (ContinuousClock.now - started).seconds
                let interrupted = (error as? PipelineError)?.code == .interrupted
                // The ledger says how the run ended as far as it can; the step's own error is what matters.
                try? await ledger.finish(
                    run: number, status: interrupted ? .interrupted : .failed, counts: totals, seconds: report.seconds)
                throw PipelineRunError(report: report, underlying: error)
            }
        }
        report.seconds = (ContinuousClock.now - started).seconds
        do {
            try await ledger.finish(run: number, status: .succeeded, counts: totals, seconds: report.seconds)
        } catch {
            throw PipelineRunError(report: report, underlying: error)
        }
        return report
    }

    /// The pipeline file's name, as the ledger names its runs (`nightly.yml`, and `nightly.yml: products` for a
    /// step).
    private var fileName: String { URL(fileURLWithPath: file.path).lastPathComponent }

    /// Runs `step`; any step but an import (which keeps its own, resumable run) is recorded in the ledger as a run
    /// of its own, so `ferry inspect` shows how each step of a night ended.
    private func run(
        _ step: PipelineStep, ledger: RunLedger, outputs: OutputPathValues, resume: Bool, stop: StopSignal?,
        progress: (@Sendable (StepProgress) -> Void)?
    ) async throws -> PipelineReport.Step {
        if case .importRecords = step.action {
            return try await perform(
                step, ledger: ledger, outputs: outputs, resume: resume, stop: stop, progress: progress)
        }
        let started = ContinuousClock.now
        let number = try await ledger.start(pipeline: "\(fileName): \(step.name)", kind: step.kind)
        do {
            var result = try await perform(
                step, ledger: ledger, outputs: outputs, resume: resume, stop: stop, progress: progress)
            result.run = number
            try await ledger.finish(run: number, status: .succeeded, counts: result.counts, seconds: result.seconds)
            return result
        } catch {
            try? await ledger.finish(
                run: number, status: .failed, counts: StepCounts(), seconds: (ContinuousClock.now - started).seconds)
            throw error
        }
    }

    /// Does what `step` says, once the ledger knows of it.
    private func perform(
        _ step: PipelineStep, ledger: RunLedger, outputs: OutputPathValues, resume: Bool, stop: StopSignal?,
        progress: (@Sendable (StepProgress) -> Void)?
    ) async throws -> PipelineReport.Step {
        let started = ContinuousClock.now
        let store = container.persistentStore
        var result = PipelineReport.Step(
            name: step.name, kind: step.kind, entity: nil, counts: StepCounts(), seconds: 0, outputs: [])
        switch step.action {
        case .importRecords(let spec):
            result.entity = spec.entity
            if let rejects = spec.rejectsPath { try Self.makeFolder(of: rejects) }
            let name = fileName + ": " + step.name
            // The run's ledger had killed runs' leftovers finished when the run began; a step resumes only if its
            // latest run did not finish (a finished step runs again and changes nothing).
            let outcome = try await Importer(container: container, logger: logger).run(
                spec, name: name, ledger: ledger, resume: resume ? .ifUnfinished : .no, stop: stop,
                progress: Self.naming(step.name, progress))
            result.counts = outcome.counts
            result.run = outcome.run
            result.resumed = outcome.resumed
            (result.appended, result.replaced) = (outcome.appended, outcome.replaced)
            if !outcome.unreadColumns.isEmpty { result.unreadColumns = outcome.unreadColumns }
            result.discardedColumns = outcome.discardedColumns
            if let rejects = outcome.rejectsPath { result.outputs.append(rejects) }
        case .batchUpdate(let update):
            result.entity = update.entity
            var request = BatchUpdateRequest(
                entityName: update.entity, predicate: try update.predicate.map { try FetchPredicate(format: $0) },
                propertiesToUpdate: try Self.expressions(update, model: container.model),
                resultType: .updatedObjectsCount)
            request.transactionAuthor = "ferry run \(step.name)"
            result.counts.updated = try await store.execute(request).updatedCount
        case .batchDelete(let delete):
            result.entity = delete.entity
            var fetch = FetchRequest(entityName: delete.entity)
            fetch.predicate = try delete.predicate.map { try FetchPredicate(format: $0) }
            var request = BatchDeleteRequest(fetchRequest: fetch, resultType: .count)
            request.transactionAuthor = "ferry run \(step.name)"
            let deleted = try await store.execute(request)
            result.counts.deleted = deleted.deletedCount + deleted.cascadedCount
        case .export(var export):
            result.entity = export.entity
            let template = OutputPathTemplate(export.output)
            export.output = template.expanded(with: outputs)
            if export.output != "-" { try Self.makeFolder(of: export.output) }
            let written = try await Exporter(store: store, logger: logger).export(export) { exported in
                progress?(.exporting(step: step.name, exported))
            }
            result.counts.read = written.rows
            if export.writesManifest { result.outputs += [export.output, export.manifestPath] }
            if let keep = export.keep {
                for removed in try template.removeEarlierOutputs(keeping: keep, besides: [".manifest.json"]) {
                    logger.info("removed \(removed), beyond the \(keep) kept")
                }
            }
        case .snapshot(let snapshot):
            let template = OutputPathTemplate(snapshot.output)
            let output = template.expanded(with: outputs)
            try Self.makeFolder(of: output)
            if snapshot.writesParquet {
                _ = try await ParquetSnapshotter(store: store, logger: logger).snapshot(
                    into: output, options: snapshot.parquet, replacing: snapshot.replacesExisting
                ) { entity, rows in progress?(.exporting(step: "\(step.name): \(entity)", .rows(rows))) }
            } else {
                _ = try await StoreSnapshotter(store: store, logger: logger).snapshot(
                    into: output, replacing: snapshot.replacesExisting)
            }
            result.outputs.append(output)
            if let keep = snapshot.keep {
                for removed in try template.removeEarlierOutputs(keeping: keep) {
                    logger.info("removed \(removed), beyond the \(keep) kept")
                }
            }
        case .publish(var publish):
            result.entity = publish.entity
            publish.url = try publish.resolvedURL(environment: ProcessInfo.processInfo.environment)
            if let rejects = publish.rejectsPath { try Self.makeFolder(of: rejects) }
            let published = try await Publisher(store: store, logger: logger).publish(publish) { rows in
                progress?(.publishing(step: step.name, rows: rows))
            }
            result.counts = published.counts
            result.resumed = published.resumed
        }
        result.seconds = (ContinuousClock.now - started).seconds
        return result
    }

    /// The `set:` values of a batch update as expressions: `= …` parsed, anything else converted as a field of
    /// the attribute's type would be.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` naming the attribute.
    static func expressions(_ update: BatchUpdateStep, model: ManagedObjectModel) throws
        -> [String: BatchUpdateExpression]
    {
        var expressions: [String: BatchUpdateExpression] = [:]
        let attributes = model.allAttributes(of: update.entity)
        for (name, text) in update.set {
            do {
                if text.hasPrefix("=") {
                    expressions[name] = try UpdateExpressionParser.parse(String(text.dropFirst()))
                    continue
                }
                guard let attribute = attributes.first(where: { $0.name == name }) else {
                    throw PipelineError(.invalidSpec, "\(update.entity) has no attribute '\(name)'")
                }
                let converter = try FieldConverter(type: attribute.type)
                switch converter.value(of: text) {
                case .success(let value): expressions[name] = .constant(value)
                case .failure(let failure): throw PipelineError(.invalidSpec, failure.message)
                }
            } catch let error as PipelineError {
                throw PipelineError(.invalidSpec, "batchUpdate set '\(name)': \(error.message)")
            }
        }
        return expressions
    }

    /// Makes the folder an output goes in, when it is not there yet (``PipelineValidator`` checked that it can be).
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` when it cannot be made.
    private static func makeFolder(of output: String) throws {
        let folder = URL(fileURLWithPath: output).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw PipelineError(.invalidSpec, "cannot make the folder \(folder.path) for \(output): \(error)")
        }
    }

    /// An import's progress reported to `progress`, each update naming the step it comes from.
    private static func naming(_ step: String, _ progress: (@Sendable (StepProgress) -> Void)?)
        -> (@Sendable (ImportProgress) -> Void)?
    {
        guard let progress else { return nil }
        return { update in
            var update = update
            update.step = step
            progress(.importing(update))
        }
    }
}

/// A pipeline run that failed at a step, with the report of what ran before.
public struct PipelineRunError: Error, Sendable, CustomStringConvertible {
    /// The steps that ran, and where it stopped.
    public var report: PipelineReport
    /// Why it stopped.
    public var underlying: any Error & Sendable

    public var description: String { "\(report.status): \(underlying)" }
}
