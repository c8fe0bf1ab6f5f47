internal import CSQLite3

extension Statement {
    /// A column of the current row as SQLite holds it: numbers by value, text and blobs as bytes borrowed from
    /// SQLite, valid until the statement steps, resets or is finalized.
    public enum BorrowedValue {
        /// NULL.
        case null
        /// An integer.
        case integer(Int64)
        /// A real.
        case real(Double)
        /// Text: its UTF-8 bytes, without a terminating zero.
        case text(UnsafeRawBufferPointer)
        /// A blob's bytes.
        case blob(UnsafeRawBufferPointer)
    }

    /// Column `index` of the current row, without a copy (see ``BorrowedValue`` for how long its bytes live).
    ///
    /// One `sqlite3_column_value` call reaches the column, and the value's type, number or bytes are read from it:
    /// the connection's error state is looked at once per column rather than once for the type and again for the
    /// bytes, as ``storageClass(at:)`` followed by ``withTextBytes(at:_:)`` does. The connection is used on one
    /// thread at a time, so reading the value this way is safe.
    @inline(__always)
    public func borrowedValue(at index: Int) -> BorrowedValue {
        guard let value = sqlite3_column_value(handle, Int32(index)) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let text = sqlite3_value_text(value)
            let count = Int(sqlite3_value_bytes(value))
            return .text(UnsafeRawBufferPointer(start: text, count: text == nil ? 0 : count))
        case SQLITE_BLOB:
            let bytes = sqlite3_value_blob(value)
            let count = Int(sqlite3_value_bytes(value))
            return .blob(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
        default:
            return .null
        }
    }
}
