internal import CSQLite3

extension Connection {
    /// Calls `body` on the committing thread after each commit that writes to the write-ahead log, with the
    /// number of pages the log then holds (`sqlite3_wal_hook`). When `body` returns true, the connection runs a
    /// passive checkpoint at once, inside the commit, as SQLite's automatic checkpoint does.
    ///
    /// This replaces SQLite's automatic checkpoints, which use the same hook: a later `PRAGMA wal_autocheckpoint`
    /// would in turn replace `body`. See ``WALCheckpointer``.
    public func onCommitToLog(_ body: @escaping @Sendable (_ pages: Int) -> Bool) {
        let hook = CommitToLogHook(body)
        commitToLogHook = hook
        sqlite3_wal_hook(
            handle,
            { context, database, name, pages in
                guard let context else { return SQLITE_OK }
                let hook = Unmanaged<CommitToLogHook>.fromOpaque(context).takeUnretainedValue()
                if hook.body(Int(pages)) {
                    // Busy (another connection is checkpointing) or failed: the next commit asks again.
                    _ = sqlite3_wal_checkpoint_v2(database, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(hook).toOpaque())
    }
}

/// The closure behind a connection's `sqlite3_wal_hook`, owned by the connection.
final class CommitToLogHook {
    let body: @Sendable (Int) -> Bool

    init(_ body: @escaping @Sendable (Int) -> Bool) {
        self.body = body
    }
}
