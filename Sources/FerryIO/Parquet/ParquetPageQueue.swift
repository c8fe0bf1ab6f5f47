import Dispatch
import Synchronization

/// Compresses a writer's finished data pages and adds each, behind its page header, to its column chunk: on a thread
/// of its own, so that compressing one page overlaps encoding the next, or at once on the caller's thread. Pages reach
/// their chunks in the order they were handed over, so a file's bytes are the same either way.
///
/// A page is assembled in a ``ParquetPageBuffer`` from ``takeBuffer()`` and handed over with
/// ``submit(_:to:valueCount:encoding:)``;
/// the buffer comes back to a small pool once its page is compressed. ``takeBuffer()`` waits while every buffer is
/// in flight, which bounds memory to a few pages whatever the file's size. ``waitForPages()`` comes before anything
/// reads a chunk (the end of a row group). A failure (compression, or a chunk's spill file) is thrown by the next
/// ``submit(_:to:valueCount:encoding:)`` or ``waitForPages()``.
final class ParquetPageQueue: @unchecked Sendable {
    // @unchecked: `compressor`, `thrift` and the chunks handed over are touched by the queue's thread between a
    // `submit` and the `waitForPages()` after it (the serial queue orders them), and by the owner's thread only after
    // that wait; the pool and the failure are behind mutexes.
    private let compressor: ParquetCompressor
    private var thrift = ThriftCompactWriter()
    /// `nil` when pages are compressed on the caller's thread.
    private let queue: DispatchQueue?
    /// Counts the buffers not in flight.
    private let available: DispatchSemaphore
    private let pool = Mutex<[ParquetPageBuffer]>([])
    private let failure = Mutex<(any Error)?>(nil)
    /// The capacity a new buffer starts with.
    private let bufferBytes: Int

    /// Pages in flight at most when compressing on a thread of its own.
    static let buffersInFlight = 3

    /// A queue compressing with `compressor`, on a thread of its own when `concurrent`; buffers start with room for
    /// `pageBytes` bytes.
    init(compressor: ParquetCompressor, concurrent: Bool, pageBytes: Int) {
        self.compressor = compressor
        queue = concurrent ? DispatchQueue(label: "ferry.parquet.compress") : nil
        available = DispatchSemaphore(value: concurrent ? Self.buffersInFlight : 1)
        // A page's values end past `pageBytes` by at most one value; levels and the length prefix come on top.
        bufferBytes = pageBytes + 64 * 1024
    }

    /// An empty buffer to assemble a page in; waits while every buffer is in flight.
    func takeBuffer() -> ParquetPageBuffer {
        available.wait()
        if let buffer = pool.withLock({ $0.popLast() }) { return buffer }
        return ParquetPageBuffer(capacity: bufferBytes)
    }

    /// Hands a page assembled in `body` (from ``takeBuffer()``) over: it is compressed, and its header and compressed
    /// bytes are added to `chunk`.
    ///
    /// - Throws: ``FerryIOError`` for a page handed over before that failed (the concurrent queue), or for this one's
    ///   failure (on the caller's thread).
    func submit(_ body: ParquetPageBuffer, to chunk: ParquetChunkBuffer, valueCount: Int, encoding: Int32) throws {
        let page = Page(body: body, chunk: chunk, valueCount: valueCount, encoding: encoding)
        guard let queue else {
            defer { giveBack(page.body) }
            return try compress(page)
        }
        if let failed = failure.withLock({ $0 }) {
            giveBack(page.body)
            throw failed
        }
        queue.async { [self] in
            if failure.withLock({ $0 }) == nil {
                do {
                    try compress(page)
                } catch {
                    failure.withLock { $0 = error }
                }
            }
            giveBack(page.body)
        }
    }

    /// Waits until every page handed over is in its chunk.
    ///
    /// - Throws: what compressing or adding a page threw.
    func waitForPages() throws {
        queue?.sync {}
        if let failed = failure.withLock({ $0 }) { throw failed }
    }

    /// Compresses `input` (a dictionary page) and hands the result to `body`, after every page handed over; call it
    /// only after ``waitForPages()``, with nothing handed over since.
    ///
    /// - Throws: ``FerryIOError`` when compression fails, or what `body` throws.
    func compressNow<Result>(
        _ input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        try compressor.compress(input, body)
    }

    private func compress(_ page: Page) throws {
        var thrift = self.thrift
        defer { self.thrift = thrift }
        let chunk = page.chunk
        try page.body.bytes.withUnsafeBytes { body in
            try compressor.compress(body) { compressed in
                thrift.reset()
                thrift.writeDataPageHeader(
                    uncompressedSize: body.count, compressedSize: compressed.count, valueCount: page.valueCount,
                    encoding: page.encoding)
                try thrift.bytes.withUnsafeBytes { try chunk.append($0) }
                try chunk.append(compressed)
            }
        }
        chunk.uncompressedCount += thrift.bytes.count + page.body.bytes.count
    }

    private func giveBack(_ buffer: ParquetPageBuffer) {
        buffer.bytes.removeAll(keepingCapacity: true)
        pool.withLock { $0.append(buffer) }
        available.signal()
    }

    /// A page on its way to the compressing thread.
    private struct Page: @unchecked Sendable {
        // @unchecked: the chunk is appended to only by the queue's thread until the owner waits for the pages.
        let body: ParquetPageBuffer
        let chunk: ParquetChunkBuffer
        let valueCount: Int
        let encoding: Int32
    }
}

/// The bytes of one page while it is assembled and compressed: a class, so that handing it from thread to thread never
/// copies the bytes.
final class ParquetPageBuffer: @unchecked Sendable {
    // @unchecked: one thread at a time: the owner's until it hands the page over, then the compressing thread's
    // until the buffer is back in the pool (behind its mutex).
    var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }
}
