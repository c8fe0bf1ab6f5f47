#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A buffered output that appears at its path only when complete.
///
/// Bytes go to a temporary file beside the destination; ``commit()`` flushes, syncs and renames it into
/// place, so a reader never sees half a file. An output dropped without ``commit()`` removes its temporary
/// file; one a killed process left is removed by the next output to the same path (see `TemporarySibling`). The
/// path `-` writes straight to standard output.
///
/// Two buffers take turns: while one is written out on a thread of its own (``BackgroundWrite``), the caller fills
/// the other, so formatting overlaps the kernel's copy and the ``observer``'s checksum.
public final class OutputFile {
    /// The destination path as given; `-` means standard output.
    public let path: String
    private let temporaryPath: String?
    private let descriptor: Int32
    /// The two buffers that take turns (``Counters/buffer`` is the one being filled).
    private let buffers: (UnsafeMutableRawPointer, UnsafeMutableRawPointer)
    private let capacity: Int
    private let background: BackgroundWrite
    /// The counters behind a stable pointer rather than stored properties: writers touch them for every field,
    /// and plain memory spares them Swift's dynamic exclusivity checks on class properties.
    private let counters: UnsafeMutablePointer<Counters>
    private var finished = false

    private struct Counters {
        /// The buffer being filled.
        var buffer: UnsafeMutableRawPointer
        /// Bytes in `buffer` not yet written out.
        var buffered = 0
        /// Bytes written so far, including those still buffered.
        var written = 0
    }

    /// Bytes written so far, including those still buffered.
    public var bytesWritten: Int { counters.pointee.written }
    /// Sees every byte as it goes to the file, in order, in pieces of up to the buffer's size (a manifest's
    /// checksum computed while the file is written, instead of reading it back). The bytes are valid only during
    /// the call.
    ///
    /// It is called on the thread that writes the file out, one piece after the other; every call has returned
    /// when ``flush()`` or ``commit()`` returns.
    public var observer: ((UnsafeRawBufferPointer) -> Void)? {
        get { background.observer }
        set { background.observer = newValue }
    }
    private var buffer: UnsafeMutableRawPointer { counters.pointee.buffer }
    private var buffered: Int {
        get { counters.pointee.buffered }
        set { counters.pointee.buffered = newValue }
    }

    /// Opens an output for `path`; `-` writes to standard output.
    ///
    /// - Parameters:
    ///   - path: the destination, or `-` for standard output.
    ///   - bufferSize: bytes gathered before each `write(2)` (twice this is allocated: two buffers take turns).
    /// - Throws: ``FerryIOError`` when the temporary file cannot be created.
    public init(path: String, bufferSize: Int = 256 * 1024) throws {
        self.path = path
        capacity = max(bufferSize, 64)
        if path == "-" {
            temporaryPath = nil
            descriptor = STDOUT_FILENO
        } else {
            // What a killed writer of this output left goes first: nothing else ever removes it.
            TemporarySibling.removeAbandonedFiles(for: path)
            let temporary = TemporarySibling.path(for: path)
            let opened = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard opened >= 0 else {
                let code = errno
                throw FerryIOError(
                    code == ENOENT ? .fileNotFound : code == EACCES ? .permissionDenied : .io,
                    "cannot create output: \(String(cString: strerror(code)))", file: path, errno: code)
            }
            temporaryPath = temporary
            descriptor = opened
        }
        buffers = (.allocate(byteCount: capacity, alignment: 8), .allocate(byteCount: capacity, alignment: 8))
        counters = .allocate(capacity: 1)
        counters.initialize(to: Counters(buffer: buffers.0))
        background = BackgroundWrite(descriptor: descriptor, path: path)
    }

    deinit {
        // The write in flight reads a buffer: it ends before the buffers go (its failure no longer matters).
        try? background.wait()
        if !finished, let temporaryPath {
            close(descriptor)
            unlink(temporaryPath)
        }
        buffers.0.deallocate()
        buffers.1.deallocate()
        counters.deinitialize(count: 1)
        counters.deallocate()
    }

    /// Appends bytes.
    ///
    /// - Throws: ``FerryIOError`` with ``FerryIOError/Code/io`` when the underlying write fails.
    @inline(__always)
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        counters.pointee.written += bytes.count
        if buffered + bytes.count <= capacity {
            (buffer + buffered).copyMemory(from: source, byteCount: bytes.count)
            buffered += bytes.count
            return
        }
        try startFlush()
        if bytes.count >= capacity {
            try background.writeNow(source, count: bytes.count)
        } else {
            buffer.copyMemory(from: source, byteCount: bytes.count)
            buffered = bytes.count
        }
    }

    /// Appends one byte.
    @inline(__always)
    public func write(byte: UInt8) throws {
        if buffered == capacity { try startFlush() }
        buffer.storeBytes(of: byte, toByteOffset: buffered, as: UInt8.self)
        buffered += 1
        counters.pointee.written += 1
    }

    /// Appends a string's UTF-8.
    public func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Gives direct access to free buffer space of at least `count` bytes; `body` returns how many it used.
    ///
    /// For writers that format values in place (escaping, numbers) without an intermediate copy.
    @inline(__always)
    public func withUnsafeSpace(
        atLeast count: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws {
        precondition(count <= capacity, "requested more space than the output buffer holds")
        if capacity - buffered < count { try startFlush() }
        let used = try body(UnsafeMutableRawBufferPointer(start: buffer + buffered, count: capacity - buffered))
        buffered += used
        counters.pointee.written += used
    }

    /// Writes out buffered bytes, and returns once every byte so far is written.
    public func flush() throws {
        try startFlush()
        try background.wait()
    }

    /// Hands the buffered bytes to the background write (once the one before has finished) and goes on in the
    /// other buffer.
    private func startFlush() throws {
        guard buffered > 0 else { return }
        try background.wait()
        let full = buffer
        background.start(full, count: buffered)
        counters.pointee.buffer = full == buffers.0 ? buffers.1 : buffers.0
        buffered = 0
    }

    /// Flushes, syncs and renames the temporary file into place (or just flushes standard output).
    ///
    /// - Throws: ``FerryIOError`` with ``FerryIOError/Code/io`` when any step fails; the destination is
    ///   then untouched.
    public func commit() throws {
        precondition(!finished, "OutputFile committed twice")
        try flush()
        finished = true
        guard let temporaryPath else { return }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 { throw failure("sync failed") }
        if rename(temporaryPath, path) != 0 {
            let error = failure("rename into place failed")
            unlink(temporaryPath)
            throw error
        }
    }

    private func failure(_ what: String) -> FerryIOError {
        let code = errno
        return FerryIOError(.io, "\(what): \(String(cString: strerror(code)))", file: path, errno: code)
    }
}
