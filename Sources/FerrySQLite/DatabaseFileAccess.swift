#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// What this process may do to a database file and to the folder that holds it, where SQLite writes the file's
/// write-ahead log and its index.
public struct DatabaseFileAccess: Equatable, Sendable {
    /// Whether this process may write the file itself.
    public let fileIsWritable: Bool
    /// Whether this process may create and remove files in the file's folder.
    public let folderIsWritable: Bool

    /// What this process may do to the database at `path` now.
    public init(path: String) {
        fileIsWritable = access(path, W_OK) == 0
        folderIsWritable = access(Self.folder(of: path), W_OK) == 0
    }

    /// `"file"` or `"folder"` when that part of the database cannot be written by this process (a read-only mount,
    /// another user's file or folder), or `nil` when both can, as writing the database needs.
    public var unwritablePart: String? {
        if !fileIsWritable { return "file" }
        if !folderIsWritable { return "folder" }
        return nil
    }

    /// The folder that holds `path` (`.` for a bare file name).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
