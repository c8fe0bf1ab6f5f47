import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What this process may do to a store's files.
enum StoreAccess {
    /// `"file"` or `"folder"` when that part of the store at `path` cannot be written by this process (a read-only
    /// mount, another user's file or folder), or `nil` when both can: SQLite writes its log beside the file.
    static func unwritablePart(ofStoreAt path: String) -> String? {
        if access(path, W_OK) != 0 { return "file" }
        if access(URL(fileURLWithPath: path).deletingLastPathComponent().path, W_OK) != 0 { return "folder" }
        return nil
    }
}
