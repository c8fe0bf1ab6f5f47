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
public final class SerializedConnection: @unchecked Sendable {
    // @unchecked Sendable: `connection` is only ever touched on `queue` (every access below goes through
    // `sync`/`run`, which check or hop to it), and the other stored properties are immutable.
    private let connection: Connection
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
        if isOnQueue { return try body(connection) }
        return try queue.sync { try body(connection) }
    }

    /// Runs `body` with the connection on its queue, suspending the caller (not blocking a pool thread) until it
    /// is done.
    ///
    /// - Throws: what `body` throws.
    public func run<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws -> Value) async throws -> Value {
        if isOnQueue { return try body(connection) }
        let job = Job(body)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: job.run(on: self.connection))
            }
        }
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
