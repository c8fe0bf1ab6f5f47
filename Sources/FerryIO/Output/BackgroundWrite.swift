import CGlibcExtras
import Dispatch

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// The one write of a full buffer that an ``OutputFile`` has in flight on a thread of its own, so that formatting
/// the next buffer overlaps the kernel's copy of this one and the observer's look at it (a manifest's SHA-256).
///
/// At most one write is in flight: ``wait()`` comes before the next ``start(_:count:)`` and before anything that
/// needs the file to hold every byte (a direct write, a sync, a rename). A write that fails is reported by the next
/// ``wait()``, with the `errno` of the failed call.
///
/// Every ``writebackBytes`` written are handed to the disk at once (`sync_file_range`, without waiting for them), so
/// that the sync when the output is committed finds little left to write.
final class BackgroundWrite: @unchecked Sendable {
    // @unchecked: `failure`, `observer` and the writeback counters are touched by the queue's thread only between
    // `start` and the `wait` that follows it (the group orders them), and by the owner's thread otherwise.
    private let descriptor: Int32
    private let path: String
    private let queue = DispatchQueue(label: "ferry.output.write")
    private let group = DispatchGroup()
    private var failure: FerryIOError?
    /// Sees every byte as it goes out, on the writing thread.
    var observer: ((UnsafeRawBufferPointer) -> Void)?
    /// Bytes written so far, and where the bytes not yet handed to the disk start.
    private var written: Int64 = 0
    private var writebackStart: Int64 = 0

    /// How many bytes are written before they are handed to the disk.
    static let writebackBytes: Int64 = 8 * 1024 * 1024

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Starts writing the first `count` bytes at `bytes`, which must stay untouched until the next ``wait()``.
    func start(_ bytes: UnsafeRawPointer, count: Int) {
        let pending = Pending(bytes: bytes, count: count)
        queue.async(group: group) { [self] in
            observer?(UnsafeRawBufferPointer(start: pending.bytes, count: pending.count))
            do {
                try FileDescriptorWrite.writeAll(descriptor, pending.bytes, pending.count) { writeFailure() }
                wrote(pending.count)
            } catch let error as FerryIOError {
                failure = error
            } catch {
                failure = FerryIOError(.io, "write failed: \(error)", file: path)
            }
        }
    }

    /// Waits for the write in flight, if any.
    ///
    /// - Throws: ``FerryIOError`` `.io` when it failed (and every later wait, so no later byte lands after a gap).
    func wait() throws {
        group.wait()
        if let failure { throw failure }
    }

    /// Writes `count` bytes at `bytes` now, on the caller's thread, after the write in flight.
    ///
    /// - Throws: ``FerryIOError`` `.io` when this or the write in flight failed.
    func writeNow(_ bytes: UnsafeRawPointer, count: Int) throws {
        try wait()
        observer?(UnsafeRawBufferPointer(start: bytes, count: count))
        try FileDescriptorWrite.writeAll(descriptor, bytes, count) { writeFailure() }
        wrote(count)
    }

    /// Counts `count` bytes written, and starts writing the last ``writebackBytes`` or more to the disk once there
    /// are that many. Where that does not apply (a pipe, standard output), the call fails and nothing changes; the
    /// sync at the end still writes whatever is left.
    private func wrote(_ count: Int) {
        written += Int64(count)
        guard written - writebackStart >= Self.writebackBytes else { return }
        _ = ferry_start_writeback(descriptor, writebackStart, written - writebackStart)
        writebackStart = written
    }

    private func writeFailure() -> FerryIOError {
        let code = errno
        return FerryIOError(.io, "write failed: \(String(cString: strerror(code)))", file: path, errno: code)
    }

    /// The bytes of a write in flight, handed to the writing thread.
    private struct Pending: @unchecked Sendable {
        // @unchecked: the owner leaves the bytes alone until it waits for this write.
        let bytes: UnsafeRawPointer
        let count: Int
    }
}
