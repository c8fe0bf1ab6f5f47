import FerryIO
import FerryStore
import Foundation
import Synchronization

extension Exporter {
    /// What a partitioned export wrote.
    struct DatasetWrite {
        var rows: Int
        var files: [ExportManifest.DatasetFile]
    }

    /// Refuses partitioning where it cannot apply: formats other than Parquet, standard output.
    ///
    /// - Throws: ``PipelineError`` `.invalidExport`.
    static func checkPartitioning(_ spec: ExportSpec) throws {
        guard spec.format == .parquet else {
            throw PipelineError(
                .invalidExport, "partitioning writes Parquet datasets; this export's format is \(spec.format)")
        }
        guard spec.output != "-" else {
            throw PipelineError(.invalidExport, "a partitioned export writes a folder, not standard output")
        }
        if let duplicate = Dictionary(grouping: spec.partitionBy, by: { $0 }).first(where: { $0.value.count > 1 }) {
            throw PipelineError(.invalidExport, "the export is partitioned by \(duplicate.key) twice")
        }
    }

    /// The key paths a partitioned export fetches: its fields (every stored attribute when it names none) and the
    /// partition key paths they lack.
    static func fieldsFetched(for spec: ExportSpec, model: ManagedObjectModel) -> [String]? {
        let missing = { (fields: [String]) in spec.partitionBy.filter { !fields.contains($0) } }
        if let fields = spec.fields { return fields + missing(fields) }
        let attributes = model.allAttributes(of: spec.entity).filter(\.isStored).map(\.name)
        let lacking = missing(attributes)
        return lacking.isEmpty ? nil : attributes + lacking
    }

    /// How a partitioned export's rows reach their partitions' files.
    enum PartitionGrouping {
        /// The rows come in any order and are set aside by partition (``PartitionBuckets``), with at most
        /// `partitionLimit` partitions, before each partition's file is written from its own.
        case buckets(partitionLimit: Int)
        /// The rows come sorted by the partition key paths, and each file is written as its rows come.
        case sorted
    }

    /// Writes `rows` as a hive-partitioned dataset: one `name=value/…/part-00000.parquet` file per partition, the
    /// partition columns left out of the files, each partition's rows in the order they came. Rows set aside in
    /// buckets are reported as read, then as their partitions' files are written.
    ///
    /// - Throws: ``PartitionBuckets/TooManyPartitions`` when grouping in buckets meets more partitions than its
    ///   limit (nothing is left behind; sort the rows and write them `.sorted`); ``PipelineError`` `.invalidExport`
    ///   for a binary partition key or a folder name too long, ``FerryIOError`` when writing fails, what
    ///   ``ParquetFieldWriter`` throws.
    static func writeDataset(
        _ rows: SnapshotRows, spec: ExportSpec, model: ManagedObjectModel, blobFolder: String,
        grouping: PartitionGrouping, progress: (@Sendable (ExportProgress) -> Void)?
    ) throws -> DatasetWrite {
        var partitions: [(index: Int, type: AttributeType, name: String)] = []
        for key in spec.partitionBy {
            guard let index = rows.columns.firstIndex(where: { $0.key == key }) else {
                throw PipelineError(.invalidExport, "the partition key \(key) is not among the fields fetched")
            }
            let type = rows.columns[index].type
            guard ParquetFieldWriter.encoding(of: type) != .binary else {
                throw PipelineError(.invalidExport, "cannot partition by \(key): it holds \(type) values")
            }
            partitions.append((index, type, key))
        }
        let written = rows.columns.indices.filter { index in !partitions.contains { $0.index == index } }
        guard !written.isEmpty else {
            throw PipelineError(.invalidExport, "a partitioned export needs a field besides its partition keys")
        }
        let columns = ParquetFieldWriter.parquetColumns(
            for: written.map { rows.columns[$0] }, entity: spec.entity, model: model)
        let fields = ParquetFieldWriter(columns: rows.columns, written: written, blobFolder: blobFolder)
        fields.useDecimalColumns(columns)
        let dataset = try ExportDataset(path: spec.output)
        var files = DatasetFiles(dataset: dataset, columns: columns, options: spec.parquet)
        // Nothing is written into the dataset's folder once this returns or throws.
        defer { files.waitForFileFinishing() }
        let keys = PartitionKeyWriter(partitions: partitions)
        let count: Int
        switch grouping {
        case .sorted:
            var key: [UInt8] = []
            var previousKey: [UInt8] = []
            var writer: ParquetWriter?
            // This thread steps the rows into batches; the pipe's thread encodes them (and each writer compresses
            // its pages on worker threads).
            count = try pipeRows(rows, spec: spec, progress: progress) { row in
                key.removeAll(keepingCapacity: true)
                try keys.write(row, into: &key)
                if writer == nil || key != previousKey {
                    writer = try files.open(key)
                    swap(&key, &previousKey)
                }
                // `writer` is set just above when it was not.
                guard let writer else { preconditionFailure("no open file") }
                try fields.writeRow(row, to: writer)
            }
            try files.close()
        case .buckets(let partitionLimit):
            let buckets = try PartitionBuckets(
                beside: try dataset.filePath("rows"), reportedAs: spec.output, partitionLimit: partitionLimit)
            let router = PartitionRouter(keys: keys, buckets: buckets)
            count = try pipeRows(rows, spec: spec, progress: progress) { row in
                try buckets.add(row, toPartition: try router.partition(of: row))
            }
            let batch = RowBatch(columnCount: rows.columns.count, byteCount: buckets.chunkBytes)
            let partitionKeys = buckets.partitionKeys
            let order = partitionKeys.indices.sorted { partitionKeys[$0].lexicographicallyPrecedes(partitionKeys[$1]) }
            // Files to write, if any rows came.
            let report = { (finished: Int, rowsWritten: Int) in
                guard !order.isEmpty else { return }
                progress?(.partitionFiles(written: finished, of: order.count, rowsWritten: rowsWritten, rows: count))
            }
            report(0, 0)
            var rowsWritten = 0
            for (finished, partition) in order.enumerated() {
                let writer = try files.open(partitionKeys[partition])
                try buckets.forEachBatch(ofPartition: partition, in: batch) { batch in
                    try fields.writeBatch(batch, to: writer)
                    let before = rowsWritten
                    rowsWritten += batch.rowCount
                    forEachMultiple(of: spec.fetchBatchSize, after: before, upTo: rowsWritten) { report(finished, $0) }
                }
            }
            try files.close()
            report(order.count, count)
        }
        try dataset.commit()
        return DatasetWrite(rows: count, files: files.written)
    }
}

/// A dataset's Parquet files as they are written, one open at a time, each under its partition's folder, all by one
/// ``ParquetWriter`` that goes on from file to file: each file is finished in the background while the next is
/// written (see ``ParquetWriter/finishInBackground(continuingAt:observer:completion:)``), the last one by ``close()``.
struct DatasetFiles {
    let dataset: ExportDataset
    let columns: [ParquetColumn]
    let options: ParquetWriter.Options
    /// How many files each partition folder has had.
    private var parts: [String: Int] = [:]
    private var writer: ParquetWriter?
    /// The open file: its path in the dataset and the checksum of its bytes.
    private var open: (path: String, digest: ConcurrentDigest)?
    private let finished = FinishedFiles()

    init(dataset: ExportDataset, columns: [ParquetColumn], options: ParquetWriter.Options) {
        self.dataset = dataset
        self.columns = columns
        self.options = options
    }

    /// The files finished, in the order they were written: all of them after ``close()``.
    var written: [ExportManifest.DatasetFile] { finished.state.withLock { $0.files } }

    /// Ends the open file, if any, and opens the next one in the partition folder `key` (`name=value/…/`).
    ///
    /// - Throws: ``FerryIOError`` when creating the file, or finishing one before it, failed.
    mutating func open(_ key: [UInt8]) throws -> ParquetWriter {
        let folder = String(decoding: key, as: UTF8.self)
        let part = parts[folder, default: 0]
        parts[folder] = part + 1
        let relative = folder + "part-" + String(repeating: "0", count: max(0, 5 - "\(part)".count)) + "\(part).parquet"
        let path = try dataset.filePath(relative)
        let digest = ConcurrentDigest()
        let observer = { (bytes: UnsafeRawBufferPointer) in digest.update(bytes) }
        let next: ParquetWriter
        if let writer, let file = open {
            let finished = finished
            try writer.finishInBackground(continuingAt: path, observer: observer) { result in
                switch result {
                case .success(let done):
                    finished.record(path: file.path, rows: done.rows, bytes: done.bytes, file.digest)
                case .failure(let error):
                    finished.record(error)
                }
            }
            try finished.throwFailure()
            next = writer
        } else if let writer {
            try writer.reopen(at: path, observer: observer)
            next = writer
        } else {
            next = try ParquetWriter(path: path, columns: columns, options: options, observer: observer)
            writer = next
        }
        open = (relative, digest)
        return next
    }

    /// Waits until the file finished in the background, if any, is done.
    func waitForFileFinishing() {
        writer?.waitForFileFinishing()
    }

    /// Finishes the open file, if any, once the files before it are finished.
    ///
    /// - Throws: ``FerryIOError`` when writing a file's last row group or footer, or moving it into place, failed.
    mutating func close() throws {
        guard let file = open, let writer else { return }
        open = nil
        let result = Result { try writer.finish() }
        try finished.throwFailure()
        try result.get()
        finished.record(path: file.path, rows: writer.rowCount, bytes: writer.bytesWritten, file.digest)
    }
}

/// The files of a dataset finished so far, and the first failure; recorded on the thread that finishes them.
private final class FinishedFiles: Sendable {
    let state = Mutex<(files: [ExportManifest.DatasetFile], failure: (any Error)?)>(([], nil))

    /// Records the file at `path` in the dataset, the checksum of whose bytes `digest` has.
    func record(path: String, rows: Int, bytes: Int, _ digest: ConcurrentDigest) {
        let file = ExportManifest.DatasetFile(path: path, rows: rows, bytes: bytes, sha256: digest.finalize())
        state.withLock { $0.files.append(file) }
    }

    /// Records a failure to finish a file; the first one is kept.
    func record(_ failure: any Error) {
        state.withLock { state in
            if state.failure == nil { state.failure = failure }
        }
    }

    /// Throws the first failure to finish a file, if any.
    func throwFailure() throws {
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }
}

/// Renders a row's partition values as the folder path `name=value/…/`, into a buffer reused from row to row.
final class PartitionKeyWriter {
    private let partitions: [(index: Int, type: AttributeType, name: String)]
    private let scratch: UnsafeMutableRawBufferPointer

    init(partitions: [(index: Int, type: AttributeType, name: String)]) {
        self.partitions = partitions
        scratch = .allocate(byteCount: 64, alignment: 8)
    }

    deinit {
        scratch.deallocate()
    }

    /// Appends the current row's partition values as stored, each its storage class and then its bytes: rows with
    /// the same bytes have the same folder path, and these are cheaper to make than the path.
    func writeStoredValues<Row: ExportRow>(_ row: Row, into values: inout [UInt8]) {
        for partition in partitions {
            let index = partition.index
            switch row.storageClass(at: index) {
            case nil:
                values.append(0)
            case .integer?:
                values.append(1)
                withUnsafeBytes(of: row.int64(at: index)) { values.append(contentsOf: $0) }
            case .real?:
                values.append(2)
                withUnsafeBytes(of: row.double(at: index).bitPattern) { values.append(contentsOf: $0) }
            case .text?:
                values.append(3)
                row.withTextBytes(at: index) { text in
                    withUnsafeBytes(of: text.count) { values.append(contentsOf: $0) }
                    values.append(contentsOf: text)
                }
            case .blob?:
                // Refused when the path is made.
                values.append(4)
            }
        }
    }

    /// Appends the current row's `name=value/` segments to `key`.
    ///
    /// - Throws: ``PipelineError`` `.invalidExport` for a segment longer than a folder name may be or a binary value.
    func write<Row: ExportRow>(_ row: Row, into key: inout [UInt8]) throws {
        for partition in partitions {
            let start = key.count
            HivePartitionPath.appendName(partition.name, to: &key)
            let index = partition.index
            switch (row.storageClass(at: index), partition.type) {
            case (nil, _):
                key.append(contentsOf: HivePartitionPath.defaultPartition)
            case (.integer?, .boolean):
                key.append(contentsOf: row.int64(at: index) == 0 ? Array("false".utf8) : Array("true".utf8))
            case (.integer?, .date), (.real?, .date):
                let count = ISO8601Text.write(seconds: row.double(at: index), into: scratch)
                HivePartitionPath.appendEscaped(UnsafeRawBufferPointer(rebasing: scratch[0..<count]), to: &key)
            case (.integer?, _):
                let count = ExportFieldWriter.writeDigits(row.int64(at: index), into: scratch)
                key.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
            case (.real?, _):
                var text = row.double(at: index).description
                text.withUTF8 { HivePartitionPath.appendEscaped(UnsafeRawBufferPointer($0), to: &key) }
            case (.text?, _):
                row.withTextBytes(at: index) { bytes in
                    if bytes.isEmpty {
                        key.append(contentsOf: HivePartitionPath.defaultPartition)
                    } else {
                        HivePartitionPath.appendEscaped(bytes, to: &key)
                    }
                }
            case (.blob?, _):
                throw PipelineError(.invalidExport, "cannot partition by \(partition.name): a row holds binary data")
            }
            guard key.count - start <= HivePartitionPath.maxSegmentBytes else {
                throw PipelineError(
                    .invalidExport,
                    "a value of \(partition.name) makes a folder name of \(key.count - start) bytes, over the "
                        + "\(HivePartitionPath.maxSegmentBytes) a file system takes; partition by a shorter attribute")
            }
            key.append(0x2F)
        }
    }
}
