import Foundation
import FerryIO
import FerryStore

/// Records of one input packed for one transaction, with what the producer learned reading them.
struct Chunk: Sendable {
    /// The rows of the records that converted.
    var rows: PackedRows
    /// Where each row's record starts, to name a record refused after packing (see ``position(of:)``).
    var positions: [RecordPosition]
    /// Each row's record as read, to reject it as read if it is refused after packing (see ``fieldsJSON(of:)``).
    var raw = RawRecords()
    /// The input's header (CSV), naming the fields of ``raw``.
    var columnNames: [String]?
    /// Records refused while packing.
    var rejects: [RejectedRecord]
    /// The key (as text, compound keys joined by U+001F) of every record read, refused ones included, when the
    /// step is a full sync: its rows are kept.
    var seenKeys: [String] = []
    /// Records read, rows and rejects together.
    var read: Int
    /// The input read and how far, once this chunk commits.
    var checkpoint: Checkpoint
    /// The input's path.
    var inputPath: String
    /// Bytes of the input consumed, for progress.
    var bytesRead: Int
}

/// A hand-over of chunks from the producer thread to the committing task. The producer parses the next chunk while
/// the current one commits; a chunk it hands over waits for the consumer while more than `capacity` chunks are
/// waiting (the importer uses 0: the producer never runs more than one chunk ahead).
final class ChunkChannel: @unchecked Sendable {
    // @unchecked: every stored property is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var buffer: [Chunk] = []
    private var waiting: CheckedContinuation<Chunk?, any Error>?
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private let capacity: Int
    /// The rows of a committed chunk, emptied, for the producer to fill again.
    private var spareRows: PackedRows?

    init(capacity: Int = 1) {
        self.capacity = capacity
    }

    /// Hands over `chunk`, blocking the producer while the buffer is full. Returns `false` once cancelled.
    func put(_ chunk: Chunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if cancelled { return false }
        if let waiting {
            self.waiting = nil
            waiting.resume(returning: chunk)
            return true
        }
        buffer.append(chunk)
        while buffer.count > capacity && !cancelled { condition.wait() }
        return !cancelled
    }

    /// Hands back the rows of a chunk that committed, so the producer fills their buffers again instead of
    /// allocating new ones: reading then keeps to the same memory, chunk after chunk. The consumer lets go of its
    /// own copy before it takes the next chunk, so the buffers are the producer's alone when it empties them.
    func recycle(_ rows: PackedRows) {
        condition.lock()
        defer { condition.unlock() }
        // Once the producer is done, nothing would take them: they would only hold memory (through an index build).
        guard !finished && !cancelled else { return }
        spareRows = rows
    }

    /// Rows handed back by ``recycle(_:)``, emptied (their buffers kept when nothing else holds them), if any.
    func takeSpareRows() -> PackedRows? {
        condition.lock()
        var rows = spareRows.take()
        condition.unlock()
        rows?.removeAll()
        return rows
    }

    /// Ends the stream, with `error` when the producer failed.
    func finish(throwing error: (any Error)? = nil) {
        condition.lock()
        defer { condition.unlock() }
        finished = true
        spareRows = nil
        failure = error
        if let waiting {
            self.waiting = nil
            if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
        }
    }

    /// Stops the producer at its next hand-over.
    func cancel() {
        condition.lock()
        cancelled = true
        spareRows = nil
        condition.broadcast()
        condition.unlock()
    }

    /// The next chunk, or `nil` after the last; throws the producer's failure after the chunks before it.
    func next() async throws -> Chunk? {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            if !buffer.isEmpty {
                continuation.resume(returning: buffer.removeFirst())
                condition.broadcast()
            } else if finished {
                if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: nil) }
            } else {
                waiting = continuation
            }
        }
    }
}
