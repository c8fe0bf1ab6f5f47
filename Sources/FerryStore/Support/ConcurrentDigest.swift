import Dispatch

/// A SHA-256 computed on a queue of its own while bytes are produced elsewhere: an export's writer hands it each
/// flushed buffer and goes on formatting rows, so the manifest's checksum costs no second pass over the file and
/// little time on the writer's thread. At most ``piecesInFlight`` copies wait to be hashed: past them ``update(_:)``
/// waits, so that a burst of bytes (a Parquet row group written out at once) cannot pile up copies in memory while
/// the hashing thread waits for a core.
package final class ConcurrentDigest: @unchecked Sendable {
    // @unchecked: `hasher` is touched only on `queue`.
    private let queue = DispatchQueue(label: "ferry.digest")
    private var hasher = SHA256.Hasher()
    /// Counts the copies that may still be queued.
    private let room = DispatchSemaphore(value: ConcurrentDigest.piecesInFlight)

    /// Copies queued for hashing at most.
    package static let piecesInFlight = 8

    package init() {}

    /// Adds a copy of `bytes` to the message; returns at once unless ``piecesInFlight`` copies are still queued.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        room.wait()
        let copy = [UInt8](bytes)
        queue.async {
            copy.withUnsafeBytes { self.hasher.update($0) }
            self.room.signal()
        }
    }

    /// The digest of everything added, as 64 lowercase hex digits, once the queue has caught up.
    package func finalize() -> String {
        queue.sync { FileDigest.hex(hasher.finalize()) }
    }
}
