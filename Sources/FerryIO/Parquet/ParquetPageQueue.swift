import Dispatch
import Synchronization

/// Compresses a writer's finished data pages and adds each, behind its page header, to its column chunk: on worker
/// threads (``ParquetCompressionThreads``), several pages at once, so that compressing overlaps encoding the next pages
/// and takes whichever core is free; or at once on the caller's thread. Pages reach their chunks in the order they were
/// handed over, whichever finishes compressing first, so a file's bytes are the same either way.
///
/// A page is assembled in a ``ParquetPageBuffer`` from ``takeBuffer()`` and handed over with
/// ``submit(_:to:valueCount:encoding:)``; the buffer comes back to a small pool once its page is in its chunk.
/// ``takeBuffer()`` waits while every buffer is in flight, which bounds memory (and the pages compressed at once) to a
/// few pages whatever the file's size. Waiting for ``pagesHandedOver()`` comes before anything reads a chunk: it lets
/// another thread wait for the pages handed over so far while the owner hands over more (a row group written out, or
/// a file finished, in the background while the next is encoded). A failure (compression, or a chunk's spill file) is
/// thrown by the next ``submit(_:to:valueCount:encoding:)`` or wait.
final class ParquetPageQueue: @unchecked Sendable {
    // @unchecked: a page buffer is touched by one thread at a time: the owner's until it is handed over, then one
    // worker's while it is compressed, then whichever thread adds it to its chunk, under `completion`'s lock. Chunks
    // are appended to only under that lock between a `submit` and the wait for the pages handed over with it, and read
    // only after that wait. The pools, the completion state and the failure are behind mutexes.
    private let compression: ParquetCompression
    private let level: Int32
    /// `nil` when pages are compressed on the caller's thread.
    private let threads: ParquetCompressionThreads?
    /// Counts the buffers not in flight.
    private let available: DispatchSemaphore
    private let pool = Mutex<[ParquetPageBuffer]>([])
    /// Compressors not in use: one per page being compressed at once, made when first needed.
    private let compressors = Mutex<[ParquetCompressor]>([])
    private let completion: Mutex<Completion>
    private let failure = Mutex<(any Error)?>(nil)
    /// Pages handed over so far (the owner's thread only).
    private var submitted = 0
    /// Counts the pages handed over since the last ``pagesHandedOver()`` that are not yet in their chunks (entered
    /// on the owner's thread only).
    private var handedOver = DispatchGroup()
    /// The capacity a new buffer starts with.
    private let bufferBytes: Int
    /// The buffers ``allowPagesForFileEnds()`` adds, until it does (the owner's thread only).
    private var extraBuffersAtFileEnds: Int

    /// Pages in flight at most when compressing on worker threads: one being assembled, the others compressed at
    /// once or waiting for a page before them to reach its chunk. Eight (about 17 MiB at 1 MiB pages) absorb the
    /// moments when encoding runs ahead of compressing or falls behind it, so that neither waits for the other while
    /// a core is free; four left the cores idle more often.
    static let buffersInFlight = 8

    /// Pages in flight at most once files end often (``allowPagesForFileEnds()``), for a writer of `columns`
    /// columns: the end of a row group hands over a page per column at once, so there are at least two more than
    /// the columns. With fewer, a dataset of many small files, each a row group ending in a page per column, waited
    /// for pages to compress at every file's end.
    static func buffersInFlightAtFileEnds(columns: Int) -> Int {
        max(buffersInFlight, columns + 2)
    }

    /// Pages compressed, waiting to be added to their chunks in the order they were handed over.
    private struct Completion {
        /// The sequence number of the next page to add.
        var next = 0
        /// Compressed pages whose turn has not come, at their sequence number modulo the buffers in flight.
        var waiting: [ParquetPageBuffer?]
        /// Encodes the page headers.
        var thrift = ThriftCompactWriter()
    }

    /// A queue compressing the pages of a writer of `columns` columns with `compression` (Zstandard at `level`), on
    /// worker threads when `concurrent`; buffers start with room for `pageBytes` bytes.
    init(compression: ParquetCompression, level: Int32, concurrent: Bool, columns: Int, pageBytes: Int) {
        self.compression = compression
        self.level = level
        threads = concurrent ? .shared : nil
        let buffers = concurrent ? Self.buffersInFlight : 1
        available = DispatchSemaphore(value: buffers)
        extraBuffersAtFileEnds = concurrent ? Self.buffersInFlightAtFileEnds(columns: columns) - buffers : 0
        // Room for every page that may be in flight once files end often.
        completion = Mutex(Completion(waiting: Array(repeating: nil, count: buffers + extraBuffersAtFileEnds)))
        // A page's values end past `pageBytes` by at most one value; levels and the length prefix come on top.
        bufferBytes = pageBytes + 64 * 1024
    }

    /// Lets ``buffersInFlightAtFileEnds(columns:)`` pages be in flight from now on, for a writer that finishes one
    /// file after another (a dataset of many files). A single file ends a row group rarely, and keeps to
    /// ``buffersInFlight`` and their memory.
    func allowPagesForFileEnds() {
        for _ in 0..<extraBuffersAtFileEnds { available.signal() }
        extraBuffersAtFileEnds = 0
    }

    /// An empty buffer to assemble a page in; waits while every buffer is in flight.
    func takeBuffer() -> ParquetPageBuffer {
        available.wait()
        if let buffer = pool.withLock({ $0.popLast() }) { return buffer }
        return ParquetPageBuffer(capacity: bufferBytes)
    }

    /// Hands a page assembled in `page` (from ``takeBuffer()``) over: it is compressed, and its header and compressed
    /// bytes are added to `chunk` after the pages handed over before it.
    ///
    /// - Throws: ``FerryIOError`` for a page handed over before that failed (on worker threads), or for this one's
    ///   failure (on the caller's thread).
    func submit(
        _ page: ParquetPageBuffer, to chunk: ParquetChunkBuffer, valueCount: Int, encoding: Int32
    ) throws {
        if let failed = failure.withLock({ $0 }) {
            giveBack(page)
            throw failed
        }
        page.chunk = chunk
        page.valueCount = valueCount
        page.encoding = encoding
        page.sequence = submitted
        submitted += 1
        page.handedOver = handedOver
        handedOver.enter()
        guard let threads else {
            compressAndComplete(page)
            if let failed = failure.withLock({ $0 }) { throw failed }
            return
        }
        threads.run { [self] in compressAndComplete(page) }
    }

    /// Pages handed over up to a point (what ``pagesHandedOver()`` returns), to wait for on another thread than the
    /// owner's while the owner hands over more.
    struct PagesHandedOver: Sendable {
        fileprivate let group: DispatchGroup
        fileprivate let queue: ParquetPageQueue

        /// Waits until each of the pages is in its chunk.
        ///
        /// - Throws: what compressing or adding a page handed over before it threw.
        func wait() throws {
            group.wait()
            if let failed = queue.failure.withLock({ $0 }) { throw failed }
        }
    }

    /// The pages handed over since the last call (on the owner's thread), to wait for on any thread.
    func pagesHandedOver() -> PagesHandedOver {
        defer { handedOver = DispatchGroup() }
        return PagesHandedOver(group: handedOver, queue: self)
    }

    /// Compresses `input` (a dictionary page) and hands the result to `body` on the caller's thread, beside the pages
    /// being compressed on worker threads.
    ///
    /// - Throws: ``FerryIOError`` when compression fails, or what `body` throws.
    func compressNow<Result>(
        _ input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        let compressor = takeCompressor()
        defer { compressors.withLock { $0.append(compressor) } }
        return try compressor.compress(input, body)
    }

    /// A worker's job: compresses `page` (unless a page failed before), then adds it and every page after it that is
    /// ready to their chunks, in turn.
    private func compressAndComplete(_ page: ParquetPageBuffer) {
        if compression != .uncompressed && failure.withLock({ $0 }) == nil {
            let compressor = takeCompressor()
            do {
                try page.bytes.withUnsafeBytes { try compressor.compress($0, into: page.compressed) }
            } catch {
                fail(error)
            }
            compressors.withLock { $0.append(compressor) }
        }
        completion.withLock { state in
            let slots = state.waiting.count
            state.waiting[page.sequence % slots] = page
            while let ready = state.waiting[state.next % slots] {
                state.waiting[state.next % slots] = nil
                state.next += 1
                if failure.withLock({ $0 }) == nil {
                    do {
                        try add(ready, thrift: &state.thrift)
                    } catch {
                        fail(error)
                    }
                }
                giveBack(ready)
            }
        }
    }

    /// Adds a compressed page, behind its header, to its chunk.
    private func add(_ page: ParquetPageBuffer, thrift: inout ThriftCompactWriter) throws {
        guard let chunk = page.chunk else { preconditionFailure("a page added without its chunk") }
        try page.bytes.withUnsafeBytes { body in
            let compressed = compression == .uncompressed ? body : page.compressed.bytes
            thrift.reset()
            thrift.writeDataPageHeader(
                uncompressedSize: body.count, compressedSize: compressed.count, valueCount: page.valueCount,
                encoding: page.encoding)
            try thrift.bytes.withUnsafeBytes { try chunk.append($0) }
            try chunk.append(compressed)
            chunk.uncompressedCount += thrift.bytes.count + body.count
        }
    }

    private func takeCompressor() -> ParquetCompressor {
        compressors.withLock { $0.popLast() } ?? ParquetCompressor(compression, level: level)
    }

    /// Keeps the first failure.
    private func fail(_ error: any Error) {
        failure.withLock { failure in
            if failure == nil { failure = error }
        }
    }

    private func giveBack(_ buffer: ParquetPageBuffer) {
        buffer.bytes.removeAll(keepingCapacity: true)
        buffer.chunk = nil
        buffer.handedOver?.leave()
        buffer.handedOver = nil
        pool.withLock { $0.append(buffer) }
        available.signal()
    }
}

/// One page while it is assembled, compressed and added to its chunk: a class, so that handing it from thread to
/// thread never copies the bytes.
final class ParquetPageBuffer: @unchecked Sendable {
    // @unchecked: one thread at a time: the owner's until it hands the page over, then a worker's, then the thread
    // adding it to its chunk (under the queue's lock), until the buffer is back in the pool (behind its mutex).
    /// The page as encoded.
    var bytes: [UInt8] = []
    /// The page compressed.
    let compressed = ParquetCompressedBytes()
    /// Where the page goes, and what its header says.
    var chunk: ParquetChunkBuffer?
    var valueCount = 0
    var encoding: Int32 = 0
    /// The page's place among those handed over to the queue.
    var sequence = 0
    /// Left once the page is in its chunk (see ``ParquetPageQueue/pagesHandedOver()``).
    var handedOver: DispatchGroup?

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }
}
