#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A column chunk's compressed pages while its row group is written: the first ``memoryLimit`` bytes in memory,
/// the rest in a temporary file beside the output (unlinked as soon as it is opened, so nothing is left behind
/// whatever happens), so that memory does not grow with the row group's size.
///
/// A chunk must reach the file in one piece, after the chunks of the columns before it; ``drain(into:)`` copies it
/// there when the row group ends.
final class ParquetChunkBuffer {
    /// Bytes kept in memory before the temporary file is used.
    let memoryLimit: Int
    /// Bytes buffered since the last ``drain(into:)``.
    private(set) var count = 0
    /// The data pages' size before compression (headers included) since the last ``drain(into:)``, for the footer.
    var uncompressedCount = 0
    private var memory: [UInt8] = []
    private var descriptor: Int32 = -1
    /// The output the temporary file is beside (and whose name errors give).
    private let outputPath: String

    init(outputPath: String, memoryLimit: Int = 256 * 1024) {
        self.outputPath = outputPath
        self.memoryLimit = memoryLimit
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Adds `bytes`.
    ///
    /// - Throws: ``FerryIOError`` `.io` when the temporary file cannot be created or written (a full disk).
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        if descriptor < 0 && memory.count + bytes.count <= memoryLimit {
            memory.append(contentsOf: bytes)
            count += bytes.count
            return
        }
        if descriptor < 0 { try openSpill() }
        if !memory.isEmpty {
            try memory.withUnsafeBytes { try writeAll($0) }
            memory.removeAll(keepingCapacity: true)
        }
        try writeAll(bytes)
        count += bytes.count
    }

    /// Writes everything buffered to `output` and empties the buffer for the next row group.
    ///
    /// - Throws: ``FerryIOError`` `.io` when reading the temporary file or writing the output fails.
    func drain(into output: OutputFile) throws {
        defer { (count, uncompressedCount) = (0, 0) }
        guard descriptor >= 0 else {
            try memory.withUnsafeBytes { try output.write($0) }
            memory.removeAll(keepingCapacity: true)
            return
        }
        if !memory.isEmpty {
            try memory.withUnsafeBytes { try writeAll($0) }
            memory.removeAll(keepingCapacity: true)
        }
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw failure("rewinding the spill file failed") }
        // Read straight into the output's buffer, in pieces of its free space.
        var remaining = count
        while remaining > 0 {
            try output.withUnsafeSpace(atLeast: min(64 * 1024, remaining)) { space in
                let got = read(descriptor, space.baseAddress, min(space.count, remaining))
                if got < 0 && errno == EINTR { return 0 }
                guard got > 0 else { throw failure("reading the spill file failed") }
                remaining -= got
                return got
            }
        }
        guard lseek(descriptor, 0, SEEK_SET) == 0, ftruncate(descriptor, 0) == 0 else {
            throw failure("emptying the spill file failed")
        }
    }

    private func openSpill() throws {
        let path = TemporarySibling.path(for: outputPath)
        let opened = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw failure("cannot create a spill file for a row group") }
        unlink(path)
        descriptor = opened
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        guard let start = bytes.baseAddress else { return }
        try FileDescriptorWrite.writeAll(descriptor, start, bytes.count) { failure("writing the spill file failed") }
    }

    private func failure(_ what: String) -> FerryIOError {
        let code = errno
        return FerryIOError(.io, "\(what): \(String(cString: strerror(code)))", file: outputPath, errno: code)
    }
}
