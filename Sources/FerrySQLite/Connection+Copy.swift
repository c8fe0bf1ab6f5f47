extension Connection {
    /// Writes a consistent, compacted copy of the database to `path` with `VACUUM INTO`, in rollback-journal mode
    /// so that the copy is one self-contained file. `path` must not exist yet.
    ///
    /// - Throws: ``SQLiteError`` when SQLite cannot read this database or write the copy (the target exists, the disk
    ///   is full…).
    public func copyDatabase(to path: String) throws {
        // VACUUM INTO only reads this database, but `query_only` (a read-only connection's) refuses every VACUUM.
        let refusesChanges = try prepare("PRAGMA query_only").fetchOne()?[0] == .integer(1)
        if refusesChanges { try execute("PRAGMA query_only = OFF") }
        defer { if refusesChanges { try? execute("PRAGMA query_only = ON") } }
        let vacuum = try prepare("VACUUM INTO ?")
        try vacuum.bind([.text(path)])
        try vacuum.run()
        try Connection(path: path).execute("PRAGMA journal_mode = DELETE")
    }
}
