internal import CSQLite3

/// One value of a table, read or written piece by piece without loading it whole (SQLite's incremental blob I/O,
/// `sqlite3_blob_open`): memory stays at the size of the caller's buffer however large the value is.
///
/// The handle points at one row; ``reopen(row:)`` moves it to another row of the same column, which is cheaper than
/// opening a new one. A write never changes the value's size: make room first, with `zeroblob(n)` in an `UPDATE`,
/// then write the pieces. A handle whose row is changed by any statement other than its own writes expires, and
/// its next read or write fails with `SQLITE_ABORT`. The column must not be part of an index to be written.
///
/// ```swift
/// let blob = try connection.openBlob(table: "Product", column: "photo", row: 42, writable: false)
/// var piece = [UInt8](repeating: 0, count: min(65_536, blob.count))
/// try piece.withUnsafeMutableBytes { try blob.read(into: $0, at: 0) }  // the first 64 KiB
/// ```
///
/// Not `Sendable`: it belongs to its connection's executor, and must not outlive the connection.
public final class IncrementalBlob {
    private let handle: OpaquePointer
    private unowned let connection: Connection
    /// What the handle was opened on, for errors.
    private let label: String

    /// The value's size in bytes (of the row the handle points at).
    public private(set) var count: Int

    init(connection: Connection, table: String, column: String, row: Int64, writable: Bool) throws {
        self.connection = connection
        self.label = "incremental blob of \(table).\(column)"
        var opened: OpaquePointer?
        let status = sqlite3_blob_open(connection.handle, "main", table, column, row, writable ? 1 : 0, &opened)
        guard status == SQLITE_OK, let opened else {
            throw connection.error(status, sql: "\(label), row \(row)")
        }
        handle = opened
        count = Int(sqlite3_blob_bytes(opened))
    }

    deinit {
        sqlite3_blob_close(handle)
    }

    /// Points the handle at `row` of the same table and column.
    ///
    /// - Throws: ``SQLiteError`` when the row does not exist or its value is not TEXT or BLOB; the handle is then
    ///   aborted and only good for closing.
    public func reopen(row: Int64) throws {
        let status = sqlite3_blob_reopen(handle, row)
        guard status == SQLITE_OK else { throw connection.error(status, sql: "\(label), row \(row)") }
        count = Int(sqlite3_blob_bytes(handle))
    }

    /// Reads `buffer.count` bytes starting at `offset` into `buffer`.
    ///
    /// - Throws: ``SQLiteError`` (`SQLITE_ERROR` when the range passes the end of the value, `SQLITE_ABORT` when the
    ///   handle expired).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        let status = sqlite3_blob_read(handle, base, Int32(buffer.count), Int32(offset))
        guard status == SQLITE_OK else { throw connection.error(status, sql: label) }
    }

    /// Writes `bytes` starting at `offset` (the value keeps its size).
    ///
    /// - Throws: ``SQLiteError`` (`SQLITE_ERROR` when the range passes the end of the value, `SQLITE_READONLY` for
    ///   a handle opened for reading, `SQLITE_ABORT` when it expired).
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let status = sqlite3_blob_write(handle, base, Int32(bytes.count), Int32(offset))
        guard status == SQLITE_OK else { throw connection.error(status, sql: label) }
    }
}

extension Connection {
    /// Opens the value of `column` in `row` (its rowid) of `table` in the main database for incremental reads, or
    /// writes when `writable` (see ``IncrementalBlob``).
    ///
    /// - Throws: ``SQLiteError`` when the table, column or row does not exist, the value is not TEXT or BLOB, or a
    ///   writable handle is asked for an indexed column.
    public func openBlob(table: String, column: String, row: Int64, writable: Bool) throws -> IncrementalBlob {
        try IncrementalBlob(connection: self, table: table, column: column, row: row, writable: writable)
    }
}
