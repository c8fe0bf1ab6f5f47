#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

extension Connection {
    /// How a ``Mode/readOnly`` connection opens its file, from what the process may do beside it.
    enum ReadOnlyOpening: Equatable {
        /// Read-write underneath, every change refused by `query_only`: hot journals are rolled back, and the last
        /// connection to close removes the log, as a writer's would.
        case writableUnderneath
        /// SQLite's read-only open.
        case readOnly
        /// SQLite's read-only open of a file no one can be writing (`immutable=1`): no locks, no log looked for.
        case immutable
        /// None: a write-ahead log lies beside the file without its `-shm` index, which SQLite must create to read
        /// the log, in a folder this process cannot write (a store copied with its `-wal` file alone). Ignoring the
        /// log would read the file without its last commits.
        case logWithoutIndex
        /// None: another user's file in a folder this process may write, with no log beside it. SQLite would create
        /// the `-wal` and `-shm` files, owned by this process, and leave them: the owner could not write them, and
        /// its next write would fail on them.
        case filesTheOwnerCouldNotWrite

        /// The opening for the database at `path`; `:memory:` and `file:` URIs open as given, read-only.
        init(path: String) {
            guard path != ":memory:", !path.hasPrefix("file:") else {
                self = .readOnly
                return
            }
            let folderWritable = access(Self.folder(of: path), W_OK) == 0
            if folderWritable && access(path, W_OK) == 0 {
                self = .writableUnderneath
            } else if !folderWritable && access(path + "-wal", F_OK) != 0 && access(path + "-journal", F_OK) != 0 {
                // A writer needs its log beside the file: with none there and none possible, no one is writing.
                self = .immutable
            } else if !folderWritable && access(path + "-wal", F_OK) == 0 && access(path + "-shm", F_OK) != 0 {
                self = .logWithoutIndex
            } else if folderWritable && access(path + "-wal", F_OK) != 0 && !Self.isOwnedByThisProcess(path) {
                self = .filesTheOwnerCouldNotWrite
            } else {
                self = .readOnly
            }
        }

        /// Whether this process's user owns the file at `path` (or it cannot be looked at: SQLite then reports it).
        static func isOwnedByThisProcess(_ path: String) -> Bool {
            var status = stat()
            return stat(path, &status) != 0 || status.st_uid == geteuid()
        }

        /// The folder that holds `path` (`.` for a bare file name).
        static func folder(of path: String) -> String {
            guard let slash = path.lastIndex(of: "/") else { return "." }
            return slash == path.startIndex ? "/" : String(path[..<slash])
        }

        /// `path` as an SQLite URI with `immutable=1`, its `%`, `?` and `#` escaped (an absolute path gets an empty
        /// authority, so that one starting `//` is not read as a host).
        static func immutableURI(for path: String) -> String {
            let escapes: [Character: String] = ["%": "%25", "?": "%3F", "#": "%23"]
            let escaped = path.map { escapes[$0] ?? String($0) }.joined()
            return (path.hasPrefix("/") ? "file://" : "file:") + escaped + "?immutable=1"
        }
    }
}
