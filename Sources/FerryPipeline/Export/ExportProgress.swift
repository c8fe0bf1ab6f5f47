/// How far an export has come, as ``Exporter/export(_:progress:)`` reports it every ``ExportSpec/fetchBatchSize``
/// rows.
public enum ExportProgress: Sendable, Equatable {
    /// `rows` read from the snapshot so far: written to the output, or, by a partitioned export, set aside by
    /// partition until every row is read.
    case rows(Int)
    /// A partitioned export has read and set aside its `rows`, and writes its partitions' files: `written` of its
    /// `files` are finished, and `rowsWritten` of the rows are in them or in the file being written.
    case partitionFiles(written: Int, of: Int, rowsWritten: Int, rows: Int)
}
