extension Connection {
    /// Writes a consistent, compacted copy of the database to `path` with `VACUUM INTO`, in rollback-journal mode
    /// so that the copy is one self-contained file. `path` must not exist yet.
    ///
    /// - Throws: ``SQLiteError`` when SQLite cannot read this database or write the copy (the target exists, the disk
    ///   is full…).
    public func copyDatabase(to path: String) throws {
        let vacuum = try prepare("VACUUM INTO ?")
        try vacuum.bind([.text(path)])
        try vacuum.run()
        try Connection(path: path).execute("PRAGMA journal_mode = DELETE")
    }
}
