import FerryIO
import FerryStore
import Foundation

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

    /// Writes `rows`, sorted by the partition key paths first, as a hive-partitioned dataset: one
    /// `name=value/…/part-00000.parquet` file per partition, the partition columns left out of the files.
    ///
    /// - Throws: ``PipelineError`` `.invalidExport` for a binary partition key or a folder name too long,
    ///   ``FerryIOError`` when writing fails, what ``ParquetFieldWriter`` throws.
    static func writeDataset(
        _ rows: SnapshotRows, spec: ExportSpec, model: ManagedObjectModel, blobFolder: String,
        progress: (@Sendable (Int) -> Void)?
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
        let keys = PartitionKeyWriter(partitions: partitions)

        var files: [ExportManifest.DatasetFile] = []
        var parts: [String: Int] = [:]
        var key: [UInt8] = []
        var previousKey: [UInt8] = []
        var open: (writer: ParquetWriter, digest: ConcurrentDigest, path: String, rows: Int)?
        func close() throws {
            guard let file = open else { return }
            try file.writer.finish()
            files.append(
                .init(path: file.path, rows: file.rows, bytes: file.writer.bytesWritten, sha256: file.digest.finalize()))
            open = nil
        }
        // This thread steps the rows into batches; the pipe's thread encodes them (and each writer compresses its
        // pages on worker threads).
        let count = try pipeRows(rows, spec: spec, progress: progress) { row in
            key.removeAll(keepingCapacity: true)
            try keys.write(row, into: &key)
            if open == nil || key != previousKey {
                try close()
                let folder = String(decoding: key, as: UTF8.self)
                let part = parts[folder, default: 0]
                parts[folder] = part + 1
                let relative = folder + "part-" + String(repeating: "0", count: max(0, 5 - "\(part)".count)) + "\(part)"
                    + ".parquet"
                let digest = ConcurrentDigest()
                let writer = try ParquetWriter(
                    path: try dataset.filePath(relative), columns: columns, options: spec.parquet,
                    observer: { digest.update($0) })
                open = (writer, digest, relative, 0)
                swap(&key, &previousKey)
            }
            // `open` is set just above when it was not.
            guard let writer = open?.writer else { preconditionFailure("no open file") }
            try fields.writeRow(row, to: writer)
            open?.rows += 1
        }
        try close()
        try dataset.commit()
        return DatasetWrite(rows: count, files: files)
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
