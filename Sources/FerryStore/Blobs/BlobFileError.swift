import Foundation

/// A failed file operation on the blob folder: what was done, to which path, and the `errno` it gave.
public struct BlobFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation (`open`, `write`, `fsync`, `rename`, `unlink`…).
    public var operation: String
    /// The file or folder it was applied to.
    public var path: String
    /// The `errno` the system call set.
    public var errno: Int32

    /// The operation, the path and the system's message for `errno`.
    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
