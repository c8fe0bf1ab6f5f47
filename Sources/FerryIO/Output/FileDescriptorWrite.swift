#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Writing a whole buffer to a file descriptor: the one loop FerryIO's outputs share.
enum FileDescriptorWrite {
    /// Writes the `count` bytes at `source` to `descriptor`, going on after partial writes and retrying after
    /// `EINTR`.
    ///
    /// - Throws: what `failure` makes (it is called with `errno` still set) when a write fails.
    static func writeAll(
        _ descriptor: Int32, _ source: UnsafeRawPointer, _ count: Int, failure: () -> FerryIOError
    ) throws {
        var offset = 0
        while offset < count {
            #if canImport(Glibc)
                let written = Glibc.write(descriptor, source + offset, count - offset)
            #else
                let written = Darwin.write(descriptor, source + offset, count - offset)
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                throw failure()
            }
            offset += written
        }
    }
}
