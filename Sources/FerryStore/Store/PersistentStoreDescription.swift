/// Where and how a persistent store is kept (Core Data's `NSPersistentStoreDescription`).
///
/// ```swift
/// let description = PersistentStoreDescription(path: "/var/lib/catalog/catalog.sqlite")
/// let store = try await PersistentStore.open(description, model: model)
/// ```
public struct PersistentStoreDescription: Sendable, Hashable {
    /// Where the store lives.
    public enum Location: Sendable, Hashable {
        /// An SQLite file (WAL mode), created when missing.
        case file(path: String)
        /// A private in-memory database, gone when the store closes: for tests and scratch work.
        case inMemory
    }

    /// Where the store lives.
    public var location: Location
    /// How long a statement waits for another connection's (or process's) lock before failing.
    public var busyTimeout: Duration
    /// How hard SQLite pushes commits to disk (`PRAGMA synchronous`).
    public var synchronous: Synchronous = .normal
    /// The page cache of the store's connection, in KiB; `nil` keeps SQLite's default (2 MiB). A bulk import into
    /// a large table gains much from a bigger cache (64 MiB is what the benchmarks use); a walk of a large fetch
    /// keeps memory flat with the default.
    public var cacheSizeKiB: Int?
    /// The WAL size, in pages, past which a commit copies the log back into the database (`PRAGMA
    /// wal_autocheckpoint`); `nil` keeps SQLite's 1,000. Bulk loads run faster with a larger value: a page
    /// written by many chunks is copied back once, and checkpoints (the only syncs under `.normal`) are rarer.
    public var walAutoCheckpointPages: Int?
    /// Whether checkpoints run on a connection and thread of their own (FerrySQLite's `WALCheckpointer`), from
    /// ``walAutoCheckpointPages`` pages of log (1,000 when `nil`), rather than inside the commit that reaches them;
    /// off by default. The store's writer then never waits for a checkpoint or, under ``Synchronous/normal``, for its
    /// syncs: bulk runs commit sooner, and the two cores share the copying. Ignored for an in-memory store.
    public var checkpointsInBackground: Bool = false
    /// Whether every context save and batch request records a persistent-history transaction (Core Data's
    /// `NSPersistentHistoryTrackingKey`); off by default, as there. Turning it on for an existing store adds
    /// the history tables when the store opens; the model's version hash does not change.
    ///
    /// ```swift
    /// var description = PersistentStoreDescription(path: path)
    /// description.recordsHistory = true
    /// ```
    public var recordsHistory: Bool = false
    /// Whether the store is opened to read it only (Core Data's `isReadOnly`): the file must exist, nothing is
    /// created, checked in or swept when it opens, and every write (a save, a batch request) fails with SQLite's
    /// `SQLITE_READONLY`. Such a store opens where its file or folder cannot be written, such as a snapshot on a
    /// read-only mount (not another user's file in a folder this process may write, where SQLite would leave files
    /// the owner could not write); where both can, closing it removes the `-wal` and `-shm` files as a writer's close
    /// does. FerrySQLite's `Connection.Mode.readOnly` has the rules. Off by default.
    ///
    /// ```swift
    /// var description = PersistentStoreDescription(path: "/mnt/snapshots/catalog.sqlite")
    /// description.isReadOnly = true
    /// ```
    public var isReadOnly: Bool = false
    /// The size, in bytes, above which a value of a binary attribute that allows external storage goes to a file
    /// in the folder `<path>-blobs/` beside the store instead of its row (128 KiB by
    /// default; a value of exactly this size stays inline). Changing it affects values written from then on;
    /// values already stored read back the same wherever they live. An in-memory store keeps every value inline.
    ///
    /// ```swift
    /// var description = PersistentStoreDescription(path: path)
    /// description.externalStorageThreshold = 1 << 20  // files for values above 1 MiB
    /// ```
    public var externalStorageThreshold: Int = Self.defaultExternalStorageThreshold
    /// The default of ``externalStorageThreshold``: 128 KiB.
    public static let defaultExternalStorageThreshold = 128 * 1024

    /// SQLite's `synchronous` levels.
    public enum Synchronous: String, Sendable, Hashable {
        /// No syncs: fastest; an OS crash or power loss may corrupt the store. For scratch stores only.
        case off = "OFF"
        /// In WAL mode, commits are durable against a process crash and the store never corrupts; a power loss may
        /// lose the last commits. The default: a nightly import can re-run its last chunks.
        case normal = "NORMAL"
        /// Every commit synced to disk before it returns.
        case full = "FULL"
    }

    /// A file store at `path`.
    public init(path: String, busyTimeout: Duration = .seconds(5)) {
        self.init(location: .file(path: path), busyTimeout: busyTimeout)
    }

    /// A store at `location`.
    public init(location: Location, busyTimeout: Duration = .seconds(5)) {
        self.location = location
        self.busyTimeout = busyTimeout
    }

    /// A private in-memory store.
    public static var inMemory: PersistentStoreDescription { PersistentStoreDescription(location: .inMemory) }

    /// The path SQLite opens (`:memory:` for an in-memory store).
    public var sqlitePath: String {
        switch location {
        case .file(let path): path
        case .inMemory: ":memory:"
        }
    }
}
