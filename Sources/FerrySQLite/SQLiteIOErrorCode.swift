internal import CSQLite3

/// SQLite's extended I/O error codes (`SQLITE_IOERR_READ` and the others are macros Swift does not import).
enum SQLiteIOErrorCode {
    static let read = SQLITE_IOERR | (1 << 8)
    static let write = SQLITE_IOERR | (3 << 8)
    static let fsync = SQLITE_IOERR | (4 << 8)
    static let truncate = SQLITE_IOERR | (6 << 8)
    static let fstat = SQLITE_IOERR | (7 << 8)
    static let delete = SQLITE_IOERR | (10 << 8)
    static let access = SQLITE_IOERR | (13 << 8)
}
