import FerrySQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Creating a store file whole: a new store is built under a temporary name in its folder and appears at its path
/// only once its schema and metadata are committed, so a process killed (or a disk filled) while it creates a store
/// never leaves a half-made file there that every later open would refuse.
extension PersistentStore {
    /// The prefix of the temporary files a store at `path` is built in: `.NAME.ferry-new-`.
    static func creationPrefix(forStoreAt path: String) -> String {
        "." + URL(fileURLWithPath: path).lastPathComponent + ".ferry-new-"
    }

    /// Creates the store file at `path` for `schema` when there is none (and in any case removes what creations
    /// killed earlier left beside it).
    ///
    /// The store is built in `.NAME.ferry-new-PID-RANDOM` beside `path`: its schema and metadata committed, its log
    /// copied into it and synced, then linked to `path` (which fails, leaving the other store alone, when another
    /// process created one meanwhile) and the folder synced.
    ///
    /// - Throws: ``StoreError`` `.openFailed` when the file cannot be built or put in place, or as
    ///   `StoreMetadata.prepare(_:schema:)`.
    static func createIfMissing(at path: String, schema: StoreSchema) throws {
        let target = StorePath.resolved(path)
        // Also when the store exists: a creation killed between its link and its cleanup leaves a second name.
        removeAbandonedCreations(of: target)
        guard !FileManager.default.fileExists(atPath: target) else { return }
        let folder = URL(fileURLWithPath: target).deletingLastPathComponent().path
        let temporary =
            folder + "/" + creationPrefix(forStoreAt: target) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { removeDatabaseFiles(at: temporary) }
        do {
            let connection = try Connection(path: temporary)
            _ = try StoreMetadata.prepare(connection, schema: schema)
            // The whole log into the file, synced (the connection's synchronous is FULL): the file alone is the store.
            try connection.checkpoint(.truncate)
        } catch let error as SQLiteError {
            throw StoreError(.openFailed, "cannot create the store", path: path, underlying: error)
        }
        try syncFile(temporary, path: path)
        if link(temporary, target) != 0 {
            let failure = errno
            // Another process created the store meanwhile: it is that store we open.
            if failure == EEXIST { return }
            // A file system without hard links: a rename, which could replace a store created in the same instant.
            guard (failure == EPERM || failure == EOPNOTSUPP || failure == ENOSYS),
                !FileManager.default.fileExists(atPath: target), rename(temporary, target) == 0
            else {
                throw StoreError(
                    .openFailed, "cannot put the new store in place: \(String(cString: strerror(failure)))",
                    path: path)
            }
        }
        try syncFile(folder, path: path)
    }

    /// Removes the temporary files of creations of the store at `path` whose process has ended.
    private static func removeAbandonedCreations(of path: String) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let prefix = creationPrefix(forStoreAt: path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) {
            let pid = name.dropFirst(prefix.count).prefix { $0 != "-" }
            guard let pid = Int32(pid), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    /// Removes a database file and the files SQLite keeps beside it.
    private static func removeDatabaseFiles(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// Pushes the file (or folder) at `file` to disk.
    private static func syncFile(_ file: String, path: String) throws {
        let descriptor = Glibc.open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            let failure = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw StoreError(.openFailed, "cannot sync the new store to disk: \(failure)", path: path)
        }
        close(descriptor)
    }
}

/// Paths of store files that may not exist yet.
package enum StorePath {
    /// `path` absolute, with every symbolic link resolved, including a last component that is a link to a file not
    /// created yet: two spellings of one store file (a link to it, a link to its folder) resolve to one path.
    package static func resolved(_ path: String) -> String {
        var current = URL(fileURLWithPath: path).standardizedFileURL.path
        for _ in 0..<40 {
            if let real = realpath(current, nil) {
                defer { free(real) }
                return String(cString: real)
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            let folder = URL(fileURLWithPath: current).deletingLastPathComponent()
            guard count > 0 else {
                // Missing: its folder resolved, and its name.
                let name = URL(fileURLWithPath: current).lastPathComponent
                guard let real = realpath(folder.path, nil) else { return current }
                defer { free(real) }
                return URL(fileURLWithPath: String(cString: real)).appendingPathComponent(name).path
            }
            let destination = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current =
                destination.hasPrefix("/")
                ? destination : folder.appendingPathComponent(destination).standardizedFileURL.path
        }
        return current
    }
}
