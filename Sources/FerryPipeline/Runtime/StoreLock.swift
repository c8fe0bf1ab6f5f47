import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One run at a time per store: an exclusive `flock` on `<store>.lock`, holding the holder's pid and start time
/// so a refused run can name it. The kernel drops the lock when the process ends, however it ends, so a killed
/// run never leaves the store locked.
public final class StoreLock {
    /// The lock file beside `storePath`.
    public static func path(forStore storePath: String) -> String { storePath + ".lock" }

    private let descriptor: Int32

    /// Takes the lock of the store at `storePath` (creating the store's folder if needed), or fails at once.
    ///
    /// - Throws: ``PipelineError`` `.storeLocked` naming the holder, `.inputMissing` when the lock file cannot be
    ///   created.
    public init(storePath: String) throws {
        let path = Self.path(forStore: storePath)
        // The lock is the first thing a run puts beside the store: a new store's folder is made here.
        try? FileManager.default.createDirectory(
            at: URL(fileURLWithPath: storePath).deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw PipelineError(
                .inputMissing, "cannot create the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.holder(descriptor) ?? "another process"
            close(descriptor)
            throw PipelineError(
                .storeLocked, "the store is in use by \(holder); try again when that run ends (lock file \(path))")
        }
        self.descriptor = descriptor
        let text = "pid \(getpid()), started \(Date().formatted(.iso8601))\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    deinit {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func holder(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
