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
        observer: ((UnsafeRawBufferPointer) -> Void)?, progress: (@Sendable (Int) -> Void)?
    ) throws -> Int {
        let columns = ParquetFieldWriter.parquetColumns(for: rows.columns, entity: spec.entity, model: model)
        let writer = try ParquetWriter(path: spec.output, columns: columns, options: spec.parquet, observer: observer)
        let fields = ParquetFieldWriter(columns: rows.columns, blobFolder: blobFolder)
        fields.useDecimalColumns(columns)
        let batch = spec.fetchBatchSize
        var written = 0
        var untilBatchEnd = batch
        let count = try RowBatchPipe(columnCount: rows.columns.count).run(rows) { row in
            try fields.writeRow(row, to: writer)
            written += 1
            untilBatchEnd -= 1
            if untilBatchEnd == 0 {
                untilBatchEnd = batch
                progress?(written)
            }
        }
        try writer.finish()
        return count
    }
}
