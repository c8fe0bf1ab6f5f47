import Dispatch

/// A SHA-256 computed on a queue of its own while bytes are produced elsewhere: an export's writer hands it each
/// flushed buffer and goes on formatting rows, so the manifest's checksum costs no second pass over the file and
/// little time on the writer's thread.
package final class ConcurrentDigest: @unchecked Sendable {
    // @unchecked: `hasher` is touched only on `queue`.
    private let queue = DispatchQueue(label: "ferry.digest")
    private var hasher = SHA256.Hasher()

    package init() {}

    /// Adds a copy of `bytes` to the message; returns at once.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        let copy = [UInt8](bytes)
        queue.async { copy.withUnsafeBytes { self.hasher.update($0) } }
    }

    /// The digest of everything added, as 64 lowercase hex digits, once the queue has caught up.
    package func finalize() -> String {
        queue.sync { FileDigest.hex(hasher.finalize()) }
    }
}
