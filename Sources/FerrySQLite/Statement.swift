internal import CSQLite3

/// A prepared SQL statement: bind parameters, step through rows, reset, and step again.
///
/// A statement belongs to its ``Connection`` and to the executor that owns that connection; it is not
/// `Sendable`. Column accessors copy out of SQLite, so values stay valid after the next ``step()``.
///
/// ```swift
/// let insert = try connection.cachedStatement("INSERT INTO product (sku, price) VALUES (?, ?)")
/// try insert.bind("SKU-1", at: 1)
/// try insert.bind(19.5, at: 2)
/// try insert.run()
/// ```
public final class Statement {
    let handle: OpaquePointer
    /// The SQL text, for errors and traces.
    public let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        self.connection = connection
        self.sql = sql
        var prepared: OpaquePointer?
        let status = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard status == SQLITE_OK, let prepared else {
            throw connection.error(status, sql: sql)
        }
        handle = prepared
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The number of `?` parameters.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }
    /// The number of result columns.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    /// The result columns' names.
    public var columnNames: [String] {
        (0..<columnCount).map { String(cString: sqlite3_column_name(handle, Int32($0))) }
    }

    // MARK: Binding (parameters are numbered from 1, as in SQLite)

    /// Binds NULL.
    public func bindNull(at index: Int) throws {
        try check(sqlite3_bind_null(handle, Int32(index)))
    }

    /// Binds an integer.
    public func bind(_ value: Int64, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), value))
    }

    /// Binds an integer.
    public func bind(_ value: Int, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), Int64(value)))
    }

    /// Binds a real.
    public func bind(_ value: Double, at index: Int) throws {
        try check(sqlite3_bind_double(handle, Int32(index), value))
    }

    /// Binds text.
    public func bind(_ value: String, at index: Int) throws {
        try check(sqlite3_bind_text(handle, Int32(index), value, -1, ferry_sqlite_transient()))
    }

    /// Binds `text` from its UTF-8 bytes with their length: no C string is made and SQLite does not measure it.
    public func bindText(_ text: String, at index: Int) throws {
        var text = text
        try text.withUTF8 { try bindText(UnsafeRawBufferPointer($0), at: index) }
    }

    /// Binds UTF-8 text from borrowed bytes; SQLite copies them, so they need not outlive the call.
    public func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            // A zero-length text still needs a non-NULL pointer, or SQLite binds NULL.
            try check(sqlite3_bind_text(handle, Int32(index), "", 0, ferry_sqlite_transient()))
            return
        }
        try check(
            sqlite3_bind_text(
                handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                ferry_sqlite_transient()))
    }

    /// Binds UTF-8 text from borrowed bytes without copying them: SQLite reads them in place when the statement
    /// steps. They must stay valid and unchanged until that step is over and the parameter is bound again (or the
    /// statement is finalized); bulk inserts bind this way from a buffer that outlives the row's step, which spares
    /// SQLite an allocation and a copy per value.
    public func bindText(borrowing bytes: UnsafeRawBufferPointer, at index: Int) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return try bindText(bytes, at: index) }
        // A nil destructor is SQLITE_STATIC: SQLite neither copies nor frees the bytes.
        try check(
            sqlite3_bind_text(
                handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil))
    }

    /// Binds a blob from borrowed bytes; SQLite copies them.
    public func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int) throws {
        // An empty buffer may have no address, and a NULL pointer binds NULL: an empty blob is a zero-length one.
        guard bytes.count > 0 else { return try check(sqlite3_bind_zeroblob(handle, Int32(index), 0)) }
        try check(
            sqlite3_bind_blob(handle, Int32(index), bytes.baseAddress, Int32(bytes.count), ferry_sqlite_transient()))
    }

    /// Binds any value.
    public func bind(_ value: SQLiteValue, at index: Int) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let integer): try bind(integer, at: index)
        case .real(let real): try bind(real, at: index)
        case .text(let text): try bindText(text, at: index)
        case .blob(let bytes): try bytes.withUnsafeBytes { try bindBlob($0, at: index) }
        }
    }

    /// Binds `values` to parameters 1, 2, …
    public func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Stepping

    /// Advances to the next row; returns `false` when the statement is done.
    ///
    /// - Throws: ``SQLiteError`` carrying this statement's SQL (a constraint, `SQLITE_BUSY`, a full disk…).
    @discardableResult
    public func step() throws -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(status, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion (for statements without results), then resets it for reuse.
    public func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Makes the statement ready to run again; bindings are kept.
    public func reset() {
        sqlite3_reset(handle)
    }

    /// Runs the statement and returns every row, copied; resets the statement afterwards.
    public func fetchAll() throws -> [Row] {
        defer { sqlite3_reset(handle) }
        var rows: [Row] = []
        while try step() { rows.append(row) }
        return rows
    }

    /// Runs the statement and returns its first row, or `nil`; resets the statement afterwards.
    public func fetchOne() throws -> Row? {
        defer { sqlite3_reset(handle) }
        return try step() ? row : nil
    }

    // MARK: Reading the current row (columns are numbered from 0)

    /// The current row, copied.
    public var row: Row { Row((0..<columnCount).map { value(at: $0) }) }

    /// Whether column `index` of the current row is NULL.
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    /// Column `index` as an integer (SQLite's conversion rules apply).
    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    /// Column `index` as a real.
    public func double(at index: Int) -> Double {
        sqlite3_column_double(handle, Int32(index))
    }

    /// Column `index` as text, or `nil` when NULL.
    public func text(at index: Int) -> String? {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Calls `body` with column `index`'s text bytes, valid only during the call (no copy).
    public func withTextBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
        -> Result
    {
        let text = sqlite3_column_text(handle, Int32(index))
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return try body(UnsafeRawBufferPointer(start: text, count: text == nil ? 0 : count))
    }

    /// Calls `body` with column `index`'s blob bytes, valid only during the call (no copy); empty for NULL.
    public func withBlobBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
        -> Result
    {
        let bytes = sqlite3_column_blob(handle, Int32(index))
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return try body(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
    }

    /// The storage class of column `index` in the current row.
    public func storageClass(at index: Int) -> SQLiteValue.StorageClass {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// Column `index` as a value of its storage class.
    public func value(at index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(text(at: index) ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_blob(handle, column), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    private func check(_ status: Int32) throws {
        guard status == SQLITE_OK else { throw connection.error(status, sql: sql) }
    }
}
