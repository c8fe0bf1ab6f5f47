#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A temporary file beside an output, unlinked as soon as it is created, so that nothing is left behind whatever
/// happens to the process: bytes are appended and read back by offset, and the disk space goes when it is
/// deinitialized.
package final class ScratchFile {
    /// Bytes appended so far: the offset the next ``append(_:)`` writes at.
    package private(set) var count = 0
    private let descriptor: Int32
    /// The output errors name.
    private let outputPath: String

    /// Creates the file beside `neighbour`; errors name `outputPath` (by default, `neighbour`), the output the file
    /// serves.
    ///
    /// - Throws: ``FerryIOError`` `.io` when it cannot be created.
    package init(beside neighbour: String, reportedAs outputPath: String? = nil) throws {
        self.outputPath = outputPath ?? neighbour
        let path = TemporarySibling.path(for: neighbour)
        descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("cannot create a temporary file", self.outputPath) }
        unlink(path)
    }

    deinit {
        close(descriptor)
    }

    /// Appends `bytes` at the end.
    ///
    /// - Throws: ``FerryIOError`` `.io` when writing fails (a full disk).
    package func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard let start = bytes.baseAddress else { return }
        try FileDescriptorWrite.writeAll(descriptor, start, bytes.count) {
            Self.failure("writing a temporary file failed", outputPath)
        }
        count += bytes.count
    }

    /// Fills `buffer` with the bytes appended at `offset`.
    ///
    /// - Throws: ``FerryIOError`` `.io` when reading fails or the file ends first.
    package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws {
        precondition(offset >= 0 && offset + buffer.count <= count, "reading past what was appended")
        guard let start = buffer.baseAddress else { return }
        var done = 0
        while done < buffer.count {
            let got = pread(descriptor, start + done, buffer.count - done, off_t(offset + done))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw Self.failure("reading a temporary file failed", outputPath) }
            done += got
        }
    }

    /// Drops every byte, giving the disk space back; the next ``append(_:)`` writes at offset 0.
    ///
    /// - Throws: ``FerryIOError`` `.io` when the file cannot be truncated.
    package func removeAll() throws {
        // Appends write at the file's offset: back to the start, then cut.
        guard lseek(descriptor, 0, SEEK_SET) == 0, ftruncate(descriptor, 0) == 0 else {
            throw Self.failure("emptying a temporary file failed", outputPath)
        }
        count = 0
    }

    private static func failure(_ what: String, _ outputPath: String) -> FerryIOError {
        let code = errno
        return FerryIOError(.io, "\(what): \(String(cString: strerror(code)))", file: outputPath, errno: code)
    }
}
