#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A file (or standard input) opened for sequential reading into caller-owned buffers.
///
/// Reading never allocates: callers pass the buffer. The descriptor is closed when the value goes away.
public final class InputFile {
    /// The path as given; `-` means standard input.
    public let path: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool

    /// Opens `path` for reading; `-` reads standard input.
    ///
    /// - Throws: ``FerryIOError`` with ``FerryIOError/Code/fileNotFound``,
    ///   ``FerryIOError/Code/permissionDenied`` or ``FerryIOError/Code/io``.
    public init(path: String) throws {
        self.path = path
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
            return
        }
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else {
            let code = errno
            throw FerryIOError(
                code == ENOENT || code == ENOTDIR ? .fileNotFound : code == EACCES ? .permissionDenied : .io,
                "cannot open for reading: \(String(cString: strerror(code)))", file: path, errno: code)
        }
        var status = stat()
        if fstat(opened, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            close(opened)
            throw FerryIOError(.io, "is a directory, expected a file", file: path, errno: EISDIR)
        }
        descriptor = opened
        ownsDescriptor = true
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// The file's size in bytes when it is a regular file (for progress), else `nil`.
    public var size: Int? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// Reads up to `buffer.count` bytes; returns 0 at the end of the input.
    ///
    /// - Throws: ``FerryIOError`` with ``FerryIOError/Code/io`` and the `errno`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            throw FerryIOError(.io, "read failed: \(String(cString: strerror(code)))", file: path, errno: code)
        }
    }
}

@inline(__always)
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        return Glibc.read(descriptor, buffer, count)
    #else
        return Darwin.read(descriptor, buffer, count)
    #endif
}
