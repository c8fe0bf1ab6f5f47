import FerrySQLite

/// A cursor over the rows of a dictionary fetch in a ``ReadSnapshot``: step with ``next()`` and read the current
/// row's columns with typed accessors, in ``StoredValueCodec``'s storage forms, without copying: numbers come back
/// as values, text and blobs as bytes borrowed for the length of a closure.
///
/// ```swift
/// let rows = try snapshot.rows(of: request)
/// while try rows.next() {
///     switch rows.storageClass(at: 0) {
///     case nil: write(null)
///     case .integer?: write(rows.int64(at: 0))
///     default: rows.withTextBytes(at: 0) { bytes in write(bytes) }
///     }
/// }
/// ```
package final class SnapshotRows {
    /// One result column: the key path fetched and its attribute's type.
    package struct Column: Sendable, Hashable {
        package var key: String
        package var type: AttributeType
    }

    /// The result columns, in order.
    package let columns: [Column]
    /// The statement, positioned on the current row after ``next()`` returned `true`.
    let statement: Statement
    private let entityName: String
    private let path: String

    init(columns: [Column], statement: Statement, entityName: String, path: String) {
        self.columns = columns
        self.statement = statement
        self.entityName = entityName
        self.path = path
    }

    /// Moves to the next row; `false` when there is none.
    ///
    /// - Throws: ``StoreError`` `.sqlite` when SQLite fails; when it could not write the temporary files it sorts
    ///   in, the message says so and names their folder, which is not the store's.
    package func next() throws -> Bool {
        do {
            return try statement.step()
        } catch let error as SQLiteError {
            guard SQLiteTemporaryFiles.isWriteFailure(error) else {
                throw StoreError(.sqlite, "reading \(entityName) failed", path: path, underlying: error)
            }
            throw StoreError(
                .sqlite,
                "reading \(entityName) failed: SQLite could not write the temporary files it sorts the rows in, in "
                    + "\(SQLiteTemporaryFiles.folder) (the first of $SQLITE_TMPDIR, $TMPDIR and /var/tmp); they take "
                    + "about as much room as the rows. Is that disk full? Set SQLITE_TMPDIR to a folder with room",
                path: path, underlying: error)
        }
    }

    /// The storage class of column `index` of the current row, `nil` for NULL.
    package func storageClass(at index: Int) -> StoredValueCodec.StorageClass? {
        switch statement.storageClass(at: index) {
        case .null: nil
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

    /// A column of the current row: numbers by value, text and blobs as bytes borrowed from SQLite until the next
    /// ``next()``.
    package enum Cell {
        /// NULL.
        case null
        /// An integer.
        case integer(Int64)
        /// A real.
        case real(Double)
        /// Text: its UTF-8 bytes.
        case text(UnsafeRawBufferPointer)
        /// A blob's bytes.
        case blob(UnsafeRawBufferPointer)
    }

    /// Column `index` of the current row, its storage class and value read at once (cheaper than
    /// ``storageClass(at:)`` followed by a typed accessor).
    @inline(__always)
    package func cell(at index: Int) -> Cell {
        switch statement.borrowedValue(at: index) {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .text(let bytes): .text(bytes)
        case .blob(let bytes): .blob(bytes)
        }
    }

    /// Column `index` of the current row as an integer (SQLite converts other storage classes).
    package func int64(at index: Int) -> Int64 { statement.int64(at: index) }

    /// Column `index` of the current row as a double (SQLite converts other storage classes).
    package func double(at index: Int) -> Double { statement.double(at: index) }

    /// Column `index` of the current row as text, or `nil` for NULL (a copy: off the hot path).
    package func text(at index: Int) -> String? { statement.text(at: index) }

    /// Calls `body` with the UTF-8 bytes of column `index` of the current row, valid only during the call.
    package func withTextBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
        -> Result
    {
        try statement.withTextBytes(at: index, body)
    }

    /// Calls `body` with the bytes of the blob in column `index` of the current row, valid only during the call.
    package func withBlobBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
        -> Result
    {
        try statement.withBlobBytes(at: index, body)
    }
}
