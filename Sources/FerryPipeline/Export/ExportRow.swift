import FerryStore

/// A row an export formats: its columns in ``StoredValueCodec``'s storage forms, numbers as values and text and
/// blobs as bytes borrowed for the length of a closure. Snapshot rows are read this way straight from SQLite, and
/// rows copied into a ``RowBatch`` on the reading thread are read this way on the formatting thread.
protocol ExportRow {
    /// The storage class of column `index`, `nil` for NULL.
    func storageClass(at index: Int) -> StoredValueCodec.StorageClass?
    /// Column `index` as an integer (for an integer column).
    func int64(at index: Int) -> Int64
    /// Column `index` as a double (for an integer or real column).
    func double(at index: Int) -> Double
    /// Calls `body` with column `index`'s text bytes, valid only during the call.
    func withTextBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
    /// Calls `body` with column `index`'s blob bytes, valid only during the call.
    func withBlobBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
}

extension SnapshotRows: ExportRow {}
