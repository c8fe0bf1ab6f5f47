import FerryIO
public import FerryStore
import Foundation
public import Logging

/// Streams an entity's objects from one consistent snapshot of a store to a file, and writes its manifest.
///
/// The whole export reads inside one read transaction on a read-only connection of its own (SQLite's WAL snapshot
/// isolation): imports may commit meanwhile, and none of their rows appear in the file, the counts or the history
/// token. CSV and JSON exports read on two threads: one steps SQLite and copies rows into a few fixed-size batches,
/// the other formats the batches filled before (and the output writes the formatted bytes on a third), so memory
/// does not grow with the export.
///
/// ```swift
/// let result = try await Exporter(store: container.persistentStore).export(spec) { progress in
///     if case .rows(let rows) = progress { print("\(rows) rows") }
/// }
/// print("\(result.rows) rows, sha256 \(result.manifest?.sha256 ?? "-")")
/// ```
public struct Exporter: Sendable {
    /// The store read.
    public let store: PersistentStore
    let logger: Logger
    /// The most partitions a partitioned export sets its rows aside in; with more, it has SQLite sort the rows by
    /// partition instead (see ``PartitionBuckets``).
    var partitionLimit = 10_000

    /// An exporter for `store`.
    public init(store: PersistentStore, logger: Logger = Logger(label: "ferry.export")) {
        self.store = store
        self.logger = logger
    }

    /// What an export did.
    public struct Result: Sendable, Hashable {
        /// The rows written.
        public var rows: Int
        /// The column names written, in order.
        public var fields: [String]
        /// The snapshot's history token.
        public var historyToken: Int64?
        /// The manifest written beside the output; `nil` for standard output.
        public var manifest: ExportManifest?
        /// For an incremental export: how many deleted objects the manifest lists.
        public var deleted: Int
    }

    /// Exports what `spec` says; `progress` is told how far it has come after each ``ExportSpec/fetchBatchSize`` rows
    /// (on a thread of the export's own; the snapshot stays the same meanwhile).
    ///
    /// The output appears only once complete; an incremental export's token moves on only after that.
    /// - Throws: `FetchPredicateError` for a predicate that does not parse or fit the model (with its column),
    ///   `FetchRequestError` for an unknown entity, field or sort key, ``PipelineError`` `.invalidExport`,
    ///   `StoreError` (`.historyNotRecorded` for `sinceLast` on a store without history, `.sqlite`…),
    ///   `FerryIOError` when writing fails.
    @discardableResult
    public func export(
        _ spec: ExportSpec, progress: (@Sendable (ExportProgress) -> Void)? = nil
    ) async throws -> Result {
        guard spec.fetchBatchSize > 0 else {
            throw PipelineError(.invalidExport, "fetchBatchSize must be positive, not \(spec.fetchBatchSize)")
        }
        var fetch = FetchRequest(entityName: spec.entity, resultType: .dictionary)
        fetch.predicate = try spec.predicate.map { try FetchPredicate(format: $0) }
        fetch.sortDescriptors = spec.sort
        fetch.propertiesToFetch = spec.fields
        if let fields = spec.fields, fields.isEmpty {
            throw PipelineError(.invalidExport, "an export needs at least one field")
        }
        if let name = spec.sinceLast, store.description.isReadOnly {
            throw PipelineError(
                .invalidExport,
                "the incremental export \(name) records how far it got in the store, and the store is opened read-only")
        }
        // A partitioned export reads the rows in their own order and sets them aside by partition; past
        // `partitionLimit` partitions it reads them sorted by partition, each partition's rows arriving together.
        var sortedByPartition: FetchRequest?
        if !spec.partitionBy.isEmpty {
            try Self.checkPartitioning(spec)
            fetch.propertiesToFetch = Self.fieldsFetched(for: spec, model: store.schema.model)
            sortedByPartition = fetch
            sortedByPartition?.sortDescriptors =
                spec.partitionBy.map { FetchSortDescriptor(key: $0, ascending: true) } + spec.sort
        }
        let started = Date()
        let (request, sortedRequest, partitionLimit, logger) = (fetch, sortedByPartition, partitionLimit, logger)
        let read = try await store.withReadSnapshot { snapshot in
            try Self.write(
                request, spec, from: snapshot, sortedByPartition: sortedRequest, partitionLimit: partitionLimit,
                logger: logger, progress: progress)
        }
        var manifest: ExportManifest?
        if spec.writesManifest {
            let attributes = try? FileManager.default.attributesOfItem(atPath: spec.output)
            var written = ExportManifest(
                entity: spec.entity, predicate: spec.predicate, sort: spec.sortText, fields: read.fields,
                format: spec.format.rawValue, file: URL(fileURLWithPath: spec.output).lastPathComponent,
                rows: read.rows, bytes: (attributes?[.size] as? Int) ?? 0,
                sha256: read.sha256 ?? "", historyToken: read.historyToken,
                runs: read.runs, createdAt: ISO8601Text.string(seconds: started.timeIntervalSince1970.rounded(.down)),
                sinceLast: spec.sinceLast.map { .init(name: $0, previousToken: read.previousToken) },
                deleted: spec.sinceLast == nil ? nil : read.deleted)
            if let files = read.files {
                written.files = files
                written.partitionBy = spec.partitionBy
                written.bytes = files.reduce(0) { $0 + $1.bytes }
            }
            try ManifestJSON.write(written.jsonText, to: spec.manifestPath)
            manifest = written
        }
        if let name = spec.sinceLast {
            try await ExportTokens(store: store).record(name: name, token: read.historyToken ?? 0, rows: read.rows)
        }
        logger.info(
            "exported \(read.rows) rows of \(spec.entity)",
            metadata: ["output": "\(spec.output)", "seconds": "\(Date().timeIntervalSince(started))"])
        return Result(
            rows: read.rows, fields: read.fields, historyToken: read.historyToken, manifest: manifest,
            deleted: read.deleted.count)
    }

    /// What the snapshot gave.
    private struct SnapshotRead: Sendable {
        var rows: Int
        var fields: [String]
        var historyToken: Int64?
        var previousToken: Int64?
        /// The written file's SHA-256 (file outputs).
        var sha256: String?
        var runs: [Int64]
        var deleted: [[String: ManifestValue]]
        /// A dataset's files (partitioned exports).
        var files: [ExportManifest.DatasetFile]?
    }

    /// Writes the rows and gathers the manifest's facts, all inside the snapshot.
    private static func write(
        _ request: FetchRequest, _ spec: ExportSpec, from snapshot: ReadSnapshot, sortedByPartition: FetchRequest?,
        partitionLimit: Int, logger: Logger, progress: (@Sendable (ExportProgress) -> Void)?
    ) throws -> SnapshotRead {
        var previousToken: Int64?
        if let name = spec.sinceLast {
            guard snapshot.hasHistory else {
                throw StoreError(
                    .historyNotRecorded,
                    "--since-last \(name) needs a store that records persistent history, and this one never did; "
                        + "open it with recordsHistory (`history: true` in a pipeline) for the writes to export",
                    path: snapshot.path)
            }
            previousToken = try ExportTokens.token(of: name, in: snapshot)
        }
        let rows = try snapshot.rows(of: request, changedAfter: previousToken)
        // The manifest's checksum is computed beside the writing, from the bytes as they go out.
        let digest = spec.writesManifest ? ConcurrentDigest() : nil
        let observer = digest.map { digest in { (bytes: UnsafeRawBufferPointer) in digest.update(bytes) } }
        let fields = rows.columns.map(\.key)
        let count: Int
        var files: [ExportManifest.DatasetFile]?
        var sha256 = digest
        if let sortedByPartition {
            let write = { (rows: SnapshotRows, grouping: PartitionGrouping) in
                try writeDataset(
                    rows, spec: spec, model: snapshot.schema.model, blobFolder: snapshot.blobFolderPath,
                    grouping: grouping, progress: progress)
            }
            let dataset: DatasetWrite
            do {
                dataset = try write(rows, .buckets(partitionLimit: partitionLimit))
            } catch is PartitionBuckets.TooManyPartitions {
                logger.info(
                    "more than \(partitionLimit) partitions: reading the rows again, sorted by partition",
                    metadata: ["output": "\(spec.output)"])
                dataset = try write(try snapshot.rows(of: sortedByPartition, changedAfter: previousToken), .sorted)
            }
            count = dataset.rows
            files = dataset.files
            sha256 = nil
            if spec.writesManifest {
                let listing = ConcurrentDigest()
                for file in dataset.files { Array("\(file.sha256)  \(file.path)\n".utf8).withUnsafeBytes(listing.update) }
                sha256 = listing
            }
        } else if spec.format == .parquet {
            count = try writeParquet(
                rows, spec: spec, model: snapshot.schema.model, blobFolder: snapshot.blobFolderPath,
                observer: observer, progress: progress)
        } else {
            let writer = try spec.format.openWriter(path: spec.output, observer: observer)
            try writer.begin(columns: fields)
            count = try writeRows(rows, to: writer, spec: spec, blobFolder: snapshot.blobFolderPath, progress: progress)
            try writer.finish()
        }
        let deleted = try previousToken.map { token in
            try snapshot.deletedObjects(of: spec.entity, after: token).map { change in
                change.tombstone.mapValues(ManifestValue.init)
            }
        }
        return SnapshotRead(
            rows: count, fields: fields, historyToken: snapshot.historyToken, previousToken: previousToken,
            sha256: sha256?.finalize(),
            runs: try RunLedger.succeededRuns(in: snapshot), deleted: deleted ?? [], files: files)
    }

    /// The hot loop, specialized for the writer's concrete type.
    private static func writeRows<Writer: RecordWriter>(
        _ rows: SnapshotRows, to writer: Writer, spec: ExportSpec, blobFolder: String,
        progress: (@Sendable (ExportProgress) -> Void)?
    ) throws -> Int {
        let fields = ExportFieldWriter(
            columns: rows.columns, blobFolder: blobFolder, isJSON: spec.format == .ndjson || spec.format == .json)
        return try pipeRows(rows, spec: spec, progress: progress) { try fields.writeRow($0, to: writer) }
    }

    /// Reads `rows` on this thread while `write` takes each batch of them, in order, on a second one (see
    /// ``RowBatchPipe``), so reading rows from SQLite and formatting them overlap; tells `progress` the count
    /// written every `spec.fetchBatchSize` rows, once the batch holding that row is written. Returns how many rows
    /// there were.
    ///
    /// - Throws: what `write` threw, or ``StoreError`` when reading fails.
    static func pipeBatches(
        _ rows: SnapshotRows, spec: ExportSpec, progress: (@Sendable (ExportProgress) -> Void)?,
        write: (RowBatch) throws -> Void
    ) throws -> Int {
        let step = spec.fetchBatchSize
        var written = 0
        return try RowBatchPipe(columnCount: rows.columns.count).runBatches(rows) { batch in
            try write(batch)
            let before = written
            written += batch.rowCount
            forEachMultiple(of: step, after: before, upTo: written) { progress?(.rows($0)) }
        }
    }

    /// Calls `body` with each multiple of `step` past `before`, up to `count`: the progress reports due when the
    /// count of rows done goes from `before` to `count`.
    static func forEachMultiple(of step: Int, after before: Int, upTo count: Int, _ body: (Int) -> Void) {
        var next = (before / step + 1) * step
        while next <= count {
            body(next)
            next += step
        }
    }

    /// ``pipeBatches(_:spec:progress:write:)`` with `write` taking each row of each batch, in order.
    ///
    /// - Throws: what `write` threw, or ``StoreError`` when reading fails.
    static func pipeRows(
        _ rows: SnapshotRows, spec: ExportSpec, progress: (@Sendable (ExportProgress) -> Void)?,
        write: (RowBatch.Row) throws -> Void
    ) throws -> Int {
        try pipeBatches(rows, spec: spec, progress: progress) { try $0.forEachRow(write) }
    }
}
