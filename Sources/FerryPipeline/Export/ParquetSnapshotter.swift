public import FerryIO
public import FerryStore
import Foundation
public import Logging

/// A snapshot of a whole store as a Parquet dataset, for analytics: one sub-folder per entity
/// (`Product/part-00000.parquet`), every entity read from one consistent snapshot of the store.
///
/// Each entity's file holds its objects, those of its sub-entities included, with the entity's stored attributes,
/// typed as ``Exporter`` types a Parquet export. The folder is written beside its destination and renamed into
/// place complete, with `manifest.json` (each file's entity, rows, bytes and SHA-256, the history token, the runs
/// it reflects) and a `_SUCCESS` marker. A folder that exists and is not empty is never overwritten.
///
/// ```swift
/// let manifest = try await ParquetSnapshotter(store: container.persistentStore).snapshot(into: "lake/catalog")
/// ```
public struct ParquetSnapshotter: Sendable {
    /// The store read.
    public let store: PersistentStore
    let logger: Logger

    /// A snapshotter of `store`.
    public init(store: PersistentStore, logger: Logger = Logger(label: "ferry.snapshot")) {
        self.store = store
        self.logger = logger
    }

    /// What a Parquet snapshot wrote: `manifest.json` in the folder.
    public struct Manifest: Sendable, Hashable, Encodable {
        /// One entity's file.
        public struct EntityFile: Sendable, Hashable, Encodable {
            public var entity: String
            /// The path inside the folder, `Product/part-00000.parquet`.
            public var path: String
            public var rows: Int
            public var bytes: Int
            /// 64 lowercase hex digits.
            public var sha256: String
        }

        public var format = "parquet"
        public var files: [EntityFile]
        /// The latest history transaction the snapshot saw; `nil` when the store has recorded none.
        public var historyToken: Int64?
        /// The successful import runs whose data the snapshot holds.
        public var runs: [Int64]
        /// When the snapshot was taken, ISO 8601 UTC.
        public var createdAt: String

        enum CodingKeys: String, CodingKey {
            case format, files, runs
            case historyToken = "history_token"
            case createdAt = "created_at"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(format, forKey: .format)
            try container.encode(files, forKey: .files)
            try container.encode(historyToken, forKey: .historyToken)
            try container.encode(runs, forKey: .runs)
            try container.encode(createdAt, forKey: .createdAt)
        }
    }

    /// Writes the dataset into `folder` (created when missing).
    ///
    /// - Parameters:
    ///   - folder: the dataset's folder.
    ///   - options: the Parquet writer's options (compression, row group size).
    ///   - replacing: when `true`, a folder already at `folder` is replaced whole once the new dataset is
    ///     complete; when `false`, a folder that is not empty is never overwritten.
    ///   - progress: told the entity being written and its rows written so far, after each batch of them (a few
    ///     thousand rows), on a thread of the snapshot's own.
    /// - Throws: ``PipelineError`` `.outputExists` when `folder` exists and is not empty (without `replacing`);
    ///   `FerryIOError` when writing fails; what a Parquet export of an entity throws.
    public func snapshot(
        into folder: String, options: ParquetWriter.Options = ParquetWriter.Options(), replacing: Bool = false,
        progress: (@Sendable (_ entity: String, _ rows: Int) -> Void)? = nil
    ) async throws -> Manifest {
        let destination = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        if !replacing, let contents = try? FileManager.default.contentsOfDirectory(atPath: destination), !contents.isEmpty {
            throw PipelineError(
                .outputExists, "\(destination) already exists and is not empty; a snapshot never overwrites one")
        }
        let model = store.schema.model
        let entities = model.entities.map(\.name)
        let createdAt = ISO8601Text.string(seconds: Date().timeIntervalSince1970.rounded(.down))
        let manifest = try await store.withReadSnapshot { snapshot in
            let dataset = try ExportDataset(path: destination)
            var files: [Manifest.EntityFile] = []
            for entity in entities {
                let rows = try snapshot.rows(of: FetchRequest(entityName: entity, resultType: .dictionary))
                let relative = "\(entity)/part-00000.parquet"
                let columns = ParquetFieldWriter.parquetColumns(for: rows.columns, entity: entity, model: model)
                let digest = ConcurrentDigest()
                let writer = try ParquetWriter(
                    path: try dataset.filePath(relative), columns: columns, options: options,
                    observer: { digest.update($0) })
                let fields = ParquetFieldWriter(columns: rows.columns, blobFolder: snapshot.blobFolderPath)
                fields.useDecimalColumns(columns)
                // This thread steps the rows into batches; the pipe's thread encodes them.
                var written = 0
                let count = try RowBatchPipe(columnCount: rows.columns.count).runBatches(rows) { batch in
                    try fields.writeBatch(batch, to: writer)
                    written += batch.rowCount
                    progress?(entity, written)
                }
                try writer.finish()
                files.append(
                    .init(entity: entity, path: relative, rows: count, bytes: writer.bytesWritten, sha256: digest.finalize()))
            }
            let manifest = Manifest(
                files: files, historyToken: snapshot.historyToken, runs: try RunLedger.succeededRuns(in: snapshot),
                createdAt: createdAt)
            try ManifestJSON.write(ManifestJSON.text(of: manifest), to: try dataset.filePath("manifest.json"))
            try dataset.commit()
            return manifest
        }
        logger.info("Parquet snapshot written", metadata: ["folder": "\(destination)"])
        return manifest
    }
}
