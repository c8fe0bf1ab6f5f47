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
        /// None: opening the file would read it without its last commits or leave files that harm its owner.
        case refused(because: String)

        /// The opening for the database at `path`; `:memory:` and `file:` URIs open as given, read-only.
        init(path: String) {
            guard path != ":memory:", !path.hasPrefix("file:") else {
                self = .readOnly
                return
            }
            let permitted = DatabaseFileAccess(path: path)
            let folderWritable = permitted.folderIsWritable
            if folderWritable && permitted.fileIsWritable {
                self = .writableUnderneath
            } else if !folderWritable && access(path + "-wal", F_OK) != 0 && access(path + "-journal", F_OK) != 0 {
                // A writer needs its log beside the file: with none there and none possible, no one is writing.
                self = .immutable
            } else if !folderWritable && access(path + "-wal", F_OK) == 0 && access(path + "-shm", F_OK) != 0 {
                // A store copied with its -wal alone: SQLite must create the -shm index to read the log.
                self = .refused(
                    because: "its write-ahead log (-wal) lies beside it without its -shm file, which SQLite must "
                        + "create to read the log, and the folder cannot be written; open the store once where it can "
                        + "be written (its log is then copied into it), or copy the -shm file too")
            } else if folderWritable && access(path + "-wal", F_OK) != 0 && !Self.isOwnedByThisProcess(path) {
                // SQLite would create the -wal and -shm files and leave them, owned by this process.
                self = .refused(
                    because: "this user may write its folder but not the file, and SQLite would leave -wal and -shm "
                        + "files beside it, owned by this user, on which its owner's next write would fail; read it "
                        + "as a user who may write it, or from a folder this user cannot write")
            } else {
                self = .readOnly
            }
        }

        /// Whether this process's user owns the file at `path` (or it cannot be looked at: SQLite then reports it).
        static func isOwnedByThisProcess(_ path: String) -> Bool {
            var status = stat()
            return stat(path, &status) != 0 || status.st_uid == geteuid()
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
