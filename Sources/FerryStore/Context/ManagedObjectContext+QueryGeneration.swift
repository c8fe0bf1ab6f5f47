import FerrySQLite
import Foundation

/// A generation of the store a context can be pinned to (Core Data's `NSQueryGenerationToken`): ``current`` pins
/// the store as it is now.
public struct QueryGenerationToken: Sendable, Hashable {
    /// Which snapshot: 0 for ``current`` (a request), then one number per pin in the process.
    let serial: Int

    /// The store as it is when the context is pinned.
    public static let current = QueryGenerationToken(serial: 0)
}

/// The read transaction a pinned context reads through.
final class PinnedGeneration {
    let connection: Connection
    let token: QueryGenerationToken

    private static let serials = SerialCounter()

    /// Opens a read-only connection on `path` and starts a read transaction, pinned by a first read.
    init(path: String, busyTimeout: Duration) throws {
        connection = try Connection(path: path, mode: .readOnly, busyTimeout: busyTimeout)
        try PersistentStore.registerSQLFunctions(on: connection)
        try connection.execute("BEGIN DEFERRED")
        try connection.execute("SELECT count(*) FROM sqlite_master")
        token = QueryGenerationToken(serial: Self.serials.next())
    }

    deinit {
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
    }
}

extension StoreError.Code {
    /// A context was asked to pin another context's query generation token, which Ferry cannot carry over.
    public static let foreignQueryGeneration = StoreError.Code(rawValue: "foreignQueryGeneration", coreDataCode: 134060)
}

/// Numbers pinned generations, from 1.
final class SerialCounter: @unchecked Sendable {
    // @unchecked Sendable: the count is behind the lock.
    private let lock = NSLock()
    private var count = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }
}

extension ManagedObjectContext {
    /// Pins the context to a generation of the store, or unpins it with `nil` (Core Data's
    /// `setQueryGenerationFrom(_:)`). Pinned to ``QueryGenerationToken/current``, the context's fetches, counts and
    /// firing faults see the store as it was at this call, whatever other contexts, processes or batch requests
    /// commit afterwards, until the context saves or is reset (then it is pinned again to the store as it is then),
    /// is pinned again (`.current` once more advances it), or is unpinned. Objects already loaded keep their values
    /// either way, as always.
    ///
    /// What it costs: the pinned context holds a read-only SQLite connection of its own with a read transaction
    /// open. While it is open, WAL checkpoints cannot go past the pinned snapshot, so the store's `-wal` file grows
    /// with everything written meanwhile; unpin (or advance) a context when it no longer needs the snapshot. An
    /// in-memory store cannot be pinned (there is no file to open a second connection on).
    ///
    /// The context's own ``queryGenerationToken`` keeps it where it is. A token from another context cannot be
    /// carried over (Core Data pins the context to that context's snapshot): it is refused, and the context stays as
    /// it was.
    ///
    /// - Throws: ``StoreError`` `.openFailed` for an in-memory store or a file that cannot be opened, `.sqlite`;
    ///   `.foreignQueryGeneration` for another context's token.
    public func setQueryGeneration(from token: QueryGenerationToken?) throws {
        assertOnQueue()
        if let token, token != .current {
            if token == pinnedGeneration?.token { return }
            throw StoreError(
                .foreignQueryGeneration,
                "a context can be pinned to .current or kept at its own token; another context's query generation "
                    + "token cannot be carried over")
        }
        pinnedGeneration = nil
        guard token != nil else { return }
        guard case .file(let path) = store.description.location else {
            throw StoreError(.openFailed, "pinning a query generation needs a store file; an in-memory store has none")
        }
        do {
            pinnedGeneration = try PinnedGeneration(path: path, busyTimeout: store.description.busyTimeout)
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "pinning a query generation failed", path: path, underlying: error)
        }
    }

    /// The generation the context is pinned to, or `nil` when it reads the store as it is (Core Data's
    /// `queryGenerationToken`). Each pin gives a new token.
    public var queryGenerationToken: QueryGenerationToken? {
        assertOnQueue()
        return pinnedGeneration?.token
    }

    /// After a save or reset: a pinned context moves to the store as it is now.
    func advancePinnedGeneration() {
        guard pinnedGeneration != nil else { return }
        try? setQueryGeneration(from: .current)
    }
}
