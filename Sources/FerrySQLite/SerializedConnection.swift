import Dispatch
public import Logging

/// A ``Connection`` that lives on a serial dispatch queue of its own: the only way Ferry's store touches SQLite.
///
/// Every use of the connection runs on that queue, one at a time, so the connection is never used from two
/// threads at once, and blocking SQLite work (disk I/O, lock waits) never occupies a thread of Swift's cooperative
/// pool. `async` callers suspend while their work waits its turn; ``sync(_:)`` serves code that is already off the
/// pool. Work submitted from the queue itself runs at once instead of deadlocking.
///
/// ```swift
/// let writer = try SerializedConnection(path: "store.sqlite", label: "ferry.writer")
/// let count = try await writer.run { connection in
///     try connection.prepare("SELECT count(*) FROM Product").fetchOne()?[0].integer ?? 0
/// }
/// ```
///
/// The connection closes when ``close()`` returns, or when the last reference goes. Close it explicitly when the
/// moment matters: the last reference may be the one held by the queue's last block, released after its caller has
/// gone on, and a process that exits first never closes the connection (so SQLite never copies the rest of the log
/// into the database and removes the `-wal` file).
public final class SerializedConnection: @unchecked Sendable {
    // @unchecked Sendable: `connection` is only ever touched on `queue` (every access below goes through
    // `sync`/`run`/`close`, which check or hop to it), and the other stored properties are immutable.
    private var connection: Connection?
    private let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// The database path.
    public let path: String

    /// Opens a connection on a new serial queue named `label`.
    ///
    /// - Throws: ``SQLiteError`` when the database cannot be opened.
    public init(
        path: String, mode: Connection.Mode = .readWrite, busyTimeout: Duration = .seconds(5), label: String,
        logger: Logger = Logger(label: "ferry.sqlite")
    ) throws {
        let queue = DispatchQueue(label: label)
        self.queue = queue
        self.path = path
        connection = try queue.sync {
            try Connection(path: path, mode: mode, busyTimeout: busyTimeout, logger: logger)
        }
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
    }

    /// Whether the caller is running on this connection's queue.
    public var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self) }

    /// Runs `body` with the connection on its queue and waits for it; runs at once when already on the queue.
    ///
    /// Blocks the calling thread: call it from threads that may block (a context's queue, a command-line tool's
    /// main thread), not from Swift concurrency tasks, which should use ``run(_:)``.
    /// - Throws: what `body` throws.
    public func sync<Result>(_ body: (Connection) throws -> Result) rethrows -> Result {
        if isOnQueue { return try body(openConnection()) }
        return try queue.sync { try body(openConnection()) }
    }

    /// Runs `body` with the connection on its queue, suspending the caller (not blocking a pool thread) until it
    /// is done.
    ///
    /// - Throws: what `body` throws; ``SQLiteError`` `.misuse` after ``close()``.
    public func run<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws -> Value) async throws -> Value {
        try await run(body, closing: false)
    }

    /// Runs `body` as ``run(_:)`` does, then closes the connection before the caller resumes: for a connection
    /// opened for one piece of work (a read snapshot, a copy).
    ///
    /// - Throws: what `body` throws; ``SQLiteError`` `.misuse` after ``close()``.
    public func runAndClose<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws -> Value) async throws
        -> Value
    {
        try await run(body, closing: true)
    }

    /// Closes the connection on its queue and returns once it is closed. Later uses fail: ``run(_:)`` throws, and
    /// ``sync(_:)`` stops the program. Closing twice does nothing.
    ///
    /// Closing the last connection to a database in WAL mode copies the rest of the log into the database and
    /// removes the `-wal` and `-shm` files.
    public func close() async {
        // Closed already: the error says so, and there is nothing left to close.
        _ = try? await runAndClose { _ in }
    }

    private func run<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws -> Value, closing: Bool)
        async throws -> Value
    {
        if isOnQueue {
            defer { if closing { connection = nil } }
            return try body(try connectionOrError())
        }
        let job = Job(body)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let result = Result { try self.connectionOrError() }.flatMap { job.run(on: $0) }
                if closing { self.connection = nil }
                continuation.resume(with: result)
            }
        }
    }

    /// The open connection; stops the program after ``close()`` (``sync(_:)`` cannot throw errors of its own).
    private func openConnection() -> Connection {
        guard let connection else { preconditionFailure("\(path): the connection was used after close()") }
        return connection
    }

    /// The open connection, or the error ``run(_:)`` throws after ``close()``.
    private func connectionOrError() throws -> Connection {
        guard let connection else {
            throw SQLiteError(extendedCode: .misuse, message: "\(path): the connection was used after close()")
        }
        return connection
    }

    /// A body to run once, let go of before its caller resumes: what it captured (a request's rows, say) is
    /// released on the queue before the caller goes on, never after, so the caller may count on holding the last
    /// reference to them.
    private final class Job<Value>: @unchecked Sendable {
        // @unchecked: `body` is read and cleared once, on the connection's queue.
        private var body: ((Connection) throws -> Value)?

        init(_ body: @escaping (Connection) throws -> Value) {
            self.body = body
        }

        func run(on connection: Connection) -> Result<Value, any Error> {
            guard let body else { preconditionFailure("a job runs once") }
            self.body = nil
            return Result { try body(connection) }
        }
    }
}
