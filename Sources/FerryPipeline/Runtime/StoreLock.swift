import FerryStore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One run at a time per store: held on the store file itself, so that neither another spelling of its path (a
/// symbolic link to it or to its folder) nor a deleted lock file lets a second run in.
///
/// Two locks, both dropped by the kernel when the process ends, however it ends, so a killed run never leaves the
/// store locked:
/// - an exclusive `flock` on `<store>.lock` beside the store's real path (symbolic links resolved), holding the
///   holder's pid and start time so that a refused run can name it. It covers a store that does not exist yet.
/// - an exclusive lock on one byte of the store file (an open-file-description lock, on a byte SQLite never locks),
///   taken as soon as the file exists: ``lockStoreFile()``. Whatever becomes of the lock file, the database file
///   cannot be replaced under a run that has it open.
public final class StoreLock {
    /// The lock file beside the store at `storePath` (its real path, symbolic links resolved).
    public static func path(forStore storePath: String) -> String { StorePath.resolved(storePath) + ".lock" }

    private let descriptor: Int32
    private let storePath: String
    private var holdsStoreFile = false

    /// Takes the lock of the store at `storePath` (creating the store's folder if needed), or fails at once.
    ///
    /// - Throws: ``PipelineError`` `.storeLocked` naming the holder, `.inputMissing` when the lock file cannot be
    ///   created.
    public init(storePath: String) throws {
        // The lock is the first thing a run puts beside the store: a new store's folder is made here.
        try? FileManager.default.createDirectory(
            at: URL(fileURLWithPath: storePath).deletingLastPathComponent(), withIntermediateDirectories: true)
        self.storePath = StorePath.resolved(storePath)
        let path = self.storePath + ".lock"
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
        try lockStoreFile()
        let text = "pid \(getpid()), started \(Date().formatted(.iso8601))\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    /// Locks the store file itself, once it exists (a run that creates its store calls this after opening it);
    /// does nothing when it holds that lock already or there is no file yet.
    ///
    /// - Throws: ``PipelineError`` `.storeLocked` when another process holds the store file (its lock file was
    ///   removed or replaced meanwhile).
    public func lockStoreFile() throws {
        guard !holdsStoreFile, let file = StoreFileDescriptors.descriptor(for: storePath) else { return }
        var range = Self.lockedByte(F_WRLCK)
        guard fcntl(file, Self.setOFDLock, &range) == 0 else {
            let reason = errno == EAGAIN || errno == EACCES ? "" : ": \(String(cString: strerror(errno)))"
            throw PipelineError(
                .storeLocked,
                "the store is in use by another process, which holds the store file \(storePath) (its lock file "
                    + "was removed or replaced)\(reason); try again when that run ends")
        }
        holdsStoreFile = true
    }

    deinit {
        if holdsStoreFile, let file = StoreFileDescriptors.descriptor(for: storePath) {
            var range = Self.lockedByte(F_UNLCK)
            _ = fcntl(file, Self.setOFDLock, &range)
        }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// `F_OFD_SETLK`: a lock owned by the open file description, not the process, so that SQLite's own locks on
    /// the file (POSIX locks, on other bytes) neither merge with it nor release it.
    private static let setOFDLock: Int32 = 37

    /// The byte locked: past the bytes SQLite locks (from 1 GiB to 1 GiB + 512) and never read or written.
    private static func lockedByte(_ type: Int32) -> flock {
        var range = flock()
        range.l_type = Int16(type)
        range.l_whence = Int16(SEEK_SET)
        range.l_start = 0x4000_1000
        range.l_len = 1
        return range
    }

    private static func holder(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}

/// The descriptors through which this process locks store files, one per file, never closed.
///
/// Closing any descriptor of a file releases every POSIX lock the process holds on it, SQLite's included (the
/// shared lock each connection keeps in WAL mode, by which the last one to close knows it may remove the log): a
/// store lock that closed its descriptor while the process still had the store open could let another process's
/// SQLite believe it was alone. So the descriptor stays open for the life of the process, and is used again when
/// the same file is locked again.
enum StoreFileDescriptors {
    private struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private static let open = Mutex<[FileID: Int32]>([:])

    /// The descriptor of the file at `path`, opened for writing on first use; `nil` when there is no such file.
    static func descriptor(for path: String) -> Int32? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let id = FileID(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        return open.withLock { descriptors in
            if let descriptor = descriptors[id] { return descriptor }
            let descriptor = Glibc.open(path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            descriptors[id] = descriptor
            return descriptor
        }
    }
}
