internal import CSQLite3
import Dispatch
public import Logging
import Synchronization

/// Copies a database's write-ahead log back into the database on a thread of its own, so that the connection that
/// commits does not wait for it.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the log past `PRAGMA wal_autocheckpoint` pages:
/// that commit copies the whole log into the database and, under `synchronous = NORMAL`, syncs both files before it
/// returns. ``attach(to:)`` hands that work to the checkpointer instead: after each commit that leaves at least
/// ``thresholdPages`` pages in the log, it runs a passive checkpoint while the writer goes on with its next
/// transaction. A passive checkpoint takes no lock that a writer or reader waits for; it copies the frames no
/// reader still needs, and once it has copied them all, the next commit starts the log again from its beginning.
///
/// The log cannot start again while a checkpoint lags behind the commits: should it reach four times the threshold,
/// the committing connection checkpoints itself, as SQLite would, so the log stays bounded. Each checkpoint opens a
/// connection of its own and closes it, so the writer stays the database's last connection: closing it copies the
/// rest of the log and removes the file, as without a checkpointer.
///
/// ```swift
/// let checkpointer = WALCheckpointer(path: "store.sqlite", thresholdPages: 16_384, synchronous: "NORMAL")
/// try writer.sync { connection in checkpointer.attach(to: connection) }
/// ```
public final class WALCheckpointer: Sendable {
    private let path: String
    private let synchronous: String
    private let queue = DispatchQueue(label: "ferry.sqlite.checkpointer")
    /// Whether a checkpoint is queued and not started yet: requests meanwhile join it.
    private let isScheduled = Atomic<Bool>(false)
    private let logger: Logger
    /// The log size, in pages, from which a commit asks for a checkpoint.
    public let thresholdPages: Int

    /// A checkpointer for the database at `path`, whose checkpoints sync as `synchronous` says (the value of
    /// `PRAGMA synchronous`, as the writer's: a checkpoint's syncs are made by the connection that runs it).
    public init(path: String, thresholdPages: Int, synchronous: String, logger: Logger = Logger(label: "ferry.sqlite")) {
        self.path = path
        self.thresholdPages = max(thresholdPages, 1)
        self.synchronous = synchronous
        self.logger = logger
    }

    /// Makes `writer` (a connection to the same database) leave its checkpoints to this checkpointer: SQLite's
    /// automatic ones stop.
    public func attach(to writer: Connection) {
        let threshold = thresholdPages
        writer.onCommitToLog { [self] pages in
            guard pages >= threshold else { return false }
            schedule()
            return pages >= 4 * threshold
        }
    }

    /// Queues a checkpoint unless one is queued already.
    private func schedule() {
        guard !isScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            isScheduled.store(false, ordering: .releasing)
            do {
                let (log, copied) = try passiveCheckpoint()
                logger.trace("checkpoint", metadata: ["logPages": "\(log)", "copiedPages": "\(copied)"])
            } catch let error as SQLiteError where error.code == .busy {
                // Another connection is checkpointing: the writer itself, once the log passed four times the
                // threshold. It copies the log; the next commit past the threshold asks again.
                logger.debug("checkpoint of \(path) skipped: another connection is checkpointing")
            } catch {
                // The log then grows until a later checkpoint succeeds; nothing is lost.
                logger.warning("checkpoint of \(path) failed: \(error)")
            }
        }
    }

    /// Waits for the checkpoint under way or queued, if any.
    public func waitUntilIdle() {
        queue.sync {}
    }

    /// Runs one passive checkpoint now (after any queued one) and returns the pages in the log and the pages copied
    /// into the database (equal when the whole log was copied).
    ///
    /// - Throws: ``SQLiteError``.
    @discardableResult
    public func checkpoint() throws -> (logPages: Int, copiedPages: Int) {
        try queue.sync { try passiveCheckpoint() }
    }

    private func passiveCheckpoint() throws -> (logPages: Int, copiedPages: Int) {
        let connection = try Connection(path: path, logger: logger)
        try connection.execute("PRAGMA synchronous = \(synchronous)")
        return try connection.checkpoint(.passive)
    }
}
