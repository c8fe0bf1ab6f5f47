import Foundation

/// Where SQLite writes the temporary files of a statement whose sort or grouping outgrows its page cache
/// (`ORDER BY` without an index that gives the order, `GROUP BY`, `DISTINCT`), and how to tell that writing them
/// failed. They are as large as the rows sorted and are removed when the statement ends.
public enum SQLiteTemporaryFiles {
    /// The folder SQLite's unix VFS writes temporary files in, as it chooses it: the first of `$SQLITE_TMPDIR`,
    /// `$TMPDIR`, `/var/tmp`, `/usr/tmp` and `/tmp` that is a folder this process may write and search, else the
    /// current folder (`.`).
    public static var folder: String {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [environment["SQLITE_TMPDIR"], environment["TMPDIR"], "/var/tmp", "/usr/tmp", "/tmp"]
        for case let path? in candidates {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
                access(path, W_OK | X_OK) == 0
            {
                return path
            }
        }
        return "."
    }

    /// Whether `error` says that SQLite could not write a file: a full disk (`SQLITE_FULL`) or a failed write
    /// (`SQLITE_IOERR_WRITE`, which a file size limit gives). A statement that only reads writes nothing but its
    /// temporary files, so from one this means they did not fit.
    public static func isWriteFailure(_ error: SQLiteError) -> Bool {
        error.code == .full || error.extendedCode.rawValue == SQLiteIOErrorCode.write
    }
}
