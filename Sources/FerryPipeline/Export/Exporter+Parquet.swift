import FerryIO
import FerryStore

extension Exporter {
    /// Writes `rows` to a Parquet file typed from `model` (see ``ParquetFieldWriter``); returns how many. This
    /// thread steps the rows into batches while a second one encodes them (see ``RowBatchPipe``), and the writer
    /// compresses pages on a third.
    ///
    /// - Throws: ``FerryIOError`` when writing fails or a value does not fit its column, ``PipelineError``
    ///   `.invalidExport` for a stored value of another type than its attribute's, ``StoreError`` for an unreadable
    ///   blob file.
    static func writeParquet(
        _ rows: SnapshotRows, spec: ExportSpec, model: ManagedObjectModel, blobFolder: String,
        observer: ((UnsafeRawBufferPointer) -> Void)?, progress: (@Sendable (ExportProgress) -> Void)?
    ) throws -> Int {
        let columns = ParquetFieldWriter.parquetColumns(for: rows.columns, entity: spec.entity, model: model)
        let writer = try ParquetWriter(path: spec.output, columns: columns, options: spec.parquet, observer: observer)
        let fields = ParquetFieldWriter(columns: rows.columns, blobFolder: blobFolder)
        fields.useDecimalColumns(columns)
        let count = try pipeBatches(rows, spec: spec, progress: progress) { try fields.writeBatch($0, to: writer) }
        try writer.finish()
        return count
    }
}
