import FerrySQLite

extension PersistentStore {
    /// Copies what the store committed from its write-ahead log into the database file and syncs the file (unless
    /// ``PersistentStoreDescription/synchronous`` is `.off`), reporting any failure.
    ///
    /// SQLite makes the same copy when the store's last connection closes, but a failure there is silent: on a full
    /// disk the data then stays only in the `-wal` file, and the process ends as if all were well. A job calls this
    /// before it reports success (an import before its ledger says succeeded). Frames that a reader's snapshot still
    /// needs stay in the log for a later checkpoint; that is not a failure.
    ///
    /// ```swift
    /// try await store.execute(request)
    /// try await store.checkpoint()  // the changes are in the database file, on disk
    /// ```
    ///
    /// - Throws: ``StoreError`` `.sqlite` when a write or sync fails (a full disk, an I/O error).
    public func checkpoint() async throws {
        // A read-only store wrote nothing to copy; a writer elsewhere copies its own log.
        guard description.location != .inMemory, !description.isReadOnly else { return }
        let checkpointer = self.checkpointer
        do {
            try await writer.run { connection in
                // A background checkpoint under way would make this one busy; the writer is idle meanwhile.
                checkpointer?.waitUntilIdle()
                do {
                    try connection.checkpoint(.passive)
                } catch let error as SQLiteError where error.code == .busy {
                    // Another process's connection is copying the log (the reader closing last, say): it is its
                    // copy that puts the frames in the file, or the next checkpoint's.
                }
            }
        } catch let error as SQLiteError {
            throw StoreError(
                .sqlite,
                "copying the write-ahead log into the store file failed; what was committed is kept in the store's "
                    + "-wal file, and a later run copies it in once the disk has room",
                path: description.sqlitePath, underlying: error)
        }
    }

    /// Closes the store's connection, once any background checkpoint has finished, and returns when it is closed:
    /// closing the last connection to the file copies the rest of the write-ahead log into it and removes the
    /// `-wal` and `-shm` files. Later requests on the store fail. Closing twice does nothing.
    ///
    /// The connection also closes when the store's last reference goes, but a command-line tool should close
    /// explicitly before it exits: the last reference may be released on the connection's own thread after the
    /// caller has gone on, and a process that exits first leaves the log beside the store (nothing is lost: the next
    /// open replays it). ``checkpoint()`` still comes first when a failure to copy must be reported.
    ///
    /// ```swift
    /// try await store.checkpoint()
    /// await store.close()
    /// ```
    public func close() async {
        let checkpointer = self.checkpointer
        // The checkpointer's connection must be gone first, or the writer's close is not the last one; on the
        // writer's queue, so no commit can ask for another checkpoint in between. Closed already: nothing to do.
        _ = try? await writer.runAndClose { _ in checkpointer?.waitUntilIdle() }
    }
}
