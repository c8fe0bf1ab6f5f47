internal import CSQLite3
public import Logging

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// One SQLite database connection: the only place in Ferry that owns a `sqlite3*`.
///
/// A connection and its statements are used from one executor at a time (they are not `Sendable`); the
/// store gives each connection a serial executor of its own. Opening a file in read-write mode turns on
/// WAL, so readers see a consistent snapshot while one writer commits. With `FERRY_SQL_DEBUG=1` in the
/// environment every statement is logged with its duration (Core Data's SQLDebug); bound values are never
/// logged.
///
/// ```swift
/// let connection = try Connection(path: "store.sqlite")
/// try connection.transaction {
///     try connection.execute("CREATE TABLE IF NOT EXISTS product (sku TEXT UNIQUE, price REAL)")
/// }
/// ```
public final class Connection {
    /// How a connection opens its file.
    public enum Mode: Sendable {
        /// Read and write, creating the file if missing, in WAL mode.
        case readWrite
        /// Read only: the file must exist, and no statement may change it.
        ///
        /// Where the process may write the file and its folder, the file is opened for writing underneath, every
        /// change refused by `PRAGMA query_only`, so that SQLite does what any connection does on the way: it rolls
        /// back a hot journal left by a process killed mid-write, and the last connection to close copies the
        /// write-ahead log into the file and removes the `-wal` and `-shm` files (SQLite's read-only open leaves
        /// them behind, owned by whoever opened it).
        /// Elsewhere (a read-only mount, a folder or file of another user) it is SQLite's read-only open; when no
        /// log can exist beside the file either (its folder cannot be written and there is no `-wal` or `-journal`
        /// file, so no writer can be at work), the file is opened as immutable, without which SQLite cannot read a
        /// WAL-mode file in a folder it cannot write. A `-wal` file there without its `-shm` fails the open
        /// (`SQLITE_CANTOPEN`, saying so): SQLite could not read the log, and the file alone lacks its commits. So
        /// does another user's file that this process may not write in a folder it may, when no log lies beside it:
        /// SQLite would leave `-wal` and `-shm` files there that the owner could not write.
        case readOnly
    }

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Takes locks when first needed.
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so a writer never fails later on an upgrade.
        case immediate = "IMMEDIATE"
    }

    let handle: OpaquePointer
    /// The database's path; `:memory:` for an in-memory database.
    public let path: String
    let logger: Logger
    private var statements = StatementCache()
    /// What ``onCommitToLog(_:)`` calls, kept alive for SQLite's hook.
    var commitToLogHook: CommitToLogHook?

    /// The SQLite library's version, such as `3.40.1`.
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    /// Process-wide settings, made once before the first open initializes SQLite: no memory statistics (each
    /// allocation would take a global mutex to count itself).
    private static let configureLibrary: Void = { _ = ferry_sqlite_disable_memory_statistics() }()

    /// Opens (or creates) the database at `path`; `:memory:` opens a private in-memory database.
    ///
    /// - Parameters:
    ///   - path: the database file, or `:memory:`.
    ///   - mode: read-write (the file is created when missing) or read-only.
    ///   - busyTimeout: how long a statement waits for another connection's lock before failing with
    ///     `SQLITE_BUSY`.
    ///   - logger: where the open is logged (debug) and, with `FERRY_SQL_DEBUG=1`, each statement (info).
    /// - Throws: ``SQLiteError`` when the file cannot be opened or is not a database.
    public init(
        path: String, mode: Mode = .readWrite, busyTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "ferry.sqlite")
    ) throws {
        self.path = path
        self.logger = logger
        _ = Self.configureLibrary
        let reading = mode == .readOnly ? ReadOnlyOpening(path: path) : nil
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        switch reading {
        case nil: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .writableUnderneath: flags |= SQLITE_OPEN_READWRITE
        case .readOnly, .immutable: flags |= SQLITE_OPEN_READONLY
        case .refused(let reason):
            throw SQLiteError(
                extendedCode: .init(rawValue: SQLITE_CANTOPEN), message: "cannot open \(path) to read it: \(reason)")
        }
        var opened: OpaquePointer?
        // Its write-ahead log written in large pieces (see BufferedLogVFS).
        let status = sqlite3_open_v2(
            reading == .immutable ? ReadOnlyOpening.immutableURI(for: path) : path, &opened, flags,
            BufferedLogVFS.registeredName)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw SQLiteError(extendedCode: .init(rawValue: status), message: "cannot open \(path): \(message)")
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        let milliseconds =
            busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
        if mode == .readWrite && path != ":memory:" {
            try execute("PRAGMA journal_mode = WAL")
        }
        if reading == .writableUnderneath { try execute("PRAGMA query_only = ON") }
        if ProcessInfoEnvironment.value(of: "FERRY_SQL_DEBUG") == "1" { installTrace() }
        logger.debug(
            "opened SQLite database",
            metadata: [
                "path": "\(path)", "sqlite": "\(Self.sqliteVersion)", "compileOptions": "\(compileOptions())",
            ])
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that take no parameters and return no rows.
    ///
    /// - Throws: ``SQLiteError`` carrying the SQL.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(extendedCode: .init(rawValue: sqlite3_extended_errcode(handle)), message: text, sql: sql)
        }
    }

    /// Prepares a statement that the caller owns.
    ///
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// The connection's cached statement for `sql`, reset and with its bindings cleared.
    ///
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    public func cachedStatement(_ sql: String) throws -> Statement {
        try statements.statement(for: sql) { try Statement(connection: self, sql: $0) }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Inside a transaction already open on the connection (an enclosing one), `body` runs in a savepoint
    /// instead: released into the enclosing transaction when it returns, rolled back alone when it throws; what it
    /// wrote is committed, or not, with the enclosing transaction.
    ///
    /// - Throws: what `body` throws, or ``SQLiteError`` from BEGIN or COMMIT (then nothing is written).
    public func transaction<Result>(_ kind: TransactionKind = .immediate, _ body: () throws -> Result) throws
        -> Result
    {
        if isInTransaction { return try savepoint(body) }
        try execute("BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a savepoint of the open transaction (see ``transaction(_:_:)``).
    private func savepoint<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("SAVEPOINT ferry_nested")
        do {
            let result = try body()
            try execute("RELEASE ferry_nested")
            return result
        } catch {
            // Rolling back to a savepoint keeps it open: released at once, it leaves the enclosing transaction as it
            // was before `body`.
            if isInTransaction { try? execute("ROLLBACK TO ferry_nested; RELEASE ferry_nested") }
            throw error
        }
    }

    /// How ``checkpoint(_:)`` copies the write-ahead log into the database (`sqlite3_wal_checkpoint_v2`).
    public enum CheckpointMode: Sendable {
        /// Copies what no reader still needs, waiting for nobody.
        case passive
        /// Waits (up to the busy timeout) for readers and writers, copies the whole log and empties it.
        case truncate
    }

    /// Copies the write-ahead log into the database (syncing it, unless `PRAGMA synchronous` is OFF) and returns
    /// the pages in the log and the pages copied (equal when the whole log was copied).
    ///
    /// - Throws: ``SQLiteError`` when the checkpoint fails: busy (another connection is checkpointing, or, for
    ///   `.truncate`, a reader stayed past the busy timeout), or a write or sync failed (a full disk).
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode) throws -> (logPages: Int, copiedPages: Int) {
        var log: Int32 = 0
        var copied: Int32 = 0
        let (code, sql) =
            switch mode {
            case .passive: (SQLITE_CHECKPOINT_PASSIVE, "PRAGMA wal_checkpoint(PASSIVE)")
            case .truncate: (SQLITE_CHECKPOINT_TRUNCATE, "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        let status = sqlite3_wal_checkpoint_v2(handle, nil, code, &log, &copied)
        guard status == SQLITE_OK else { throw error(status, sql: sql) }
        return (Int(log), Int(copied))
    }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }
    /// The rowid of the most recent successful INSERT. Setting it (`sqlite3_set_last_insert_rowid`) lets a caller
    /// tell whether the next statement inserted a row: set 0, step, read it back.
    public var lastInsertRowID: Int64 {
        get { sqlite3_last_insert_rowid(handle) }
        set { sqlite3_set_last_insert_rowid(handle, newValue) }
    }

    /// The error for a failed call, with SQLite's current message.
    func error(_ status: Int32, sql: String?) -> SQLiteError {
        var code = sqlite3_extended_errcode(handle)
        if code & 0xFF != status & 0xFF { code = status }
        return SQLiteError(
            extendedCode: .init(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    private func compileOptions() -> String {
        var options: [String] = []
        var index: Int32 = 0
        while let option = sqlite3_compileoption_get(index) {
            options.append(String(cString: option))
            index += 1
        }
        return options.joined(separator: " ")
    }

    /// Logs every statement's SQL (never its bound values) and duration.
    private func installTrace() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_PROFILE),
            { _, context, statement, elapsed in
                guard let context, let statement, let elapsed else { return 0 }
                let connection = Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue()
                let nanoseconds = elapsed.load(as: Int64.self)
                let sql = sqlite3_sql(OpaquePointer(statement)).map { String(cString: $0) } ?? "?"
                let milliseconds = Double(nanoseconds) / 1_000_000
                connection.logger.info("SQL \(milliseconds.formatted3) ms: \(sql)")
                return 0
            }, context)
    }
}

/// Reads the environment without Foundation.
enum ProcessInfoEnvironment {
    static func value(of name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

extension Double {
    fileprivate var formatted3: String {
        let thousandths = (self * 1000).rounded()
        return String(thousandths / 1000)
    }
}
