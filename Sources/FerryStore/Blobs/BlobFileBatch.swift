import Foundation

/// The blob files of one transaction, written without a sync each (``BlobFileStream``) and made durable together
/// before the transaction commits: one sync of the file system for their bytes, the renames into place, one more
/// for the renames. A file per value synced on its own (``BlobFolder/write(_:as:)``) costs two syncs per value; a
/// batch costs two per transaction, whatever its size.
///
/// The order keeps the store's rule: no file gets its real name before its bytes are durable, and every file a row
/// will refer to is durable under its name before the commit. Files a killed process leaves are temporary files
/// or named files no row refers to, which the sweep removes; a later run that stores the same bytes reuses a named
/// one (the final sync covers it too, in case its rename never reached the disk). Not `Sendable`.
struct BlobFileBatch {
    let folder: BlobFolder
    /// Temporary files to rename into place, by the hash they hold.
    private var pending: [String: String] = [:]
    /// The sub-folders of the files added since the last ``publish()``, new or reused.
    private var subfolders: Set<String> = []

    init(folder: BlobFolder) {
        self.folder = folder
    }

    /// Takes the finished `stream` (its bytes are `reference`'s): keeps it to rename into place, or removes it when
    /// the file is there already (or another value of the batch brings it).
    ///
    /// - Throws: ``BlobFileError`` when the redundant temporary file cannot be removed.
    mutating func add(_ stream: BlobFileStream, as reference: BlobReference) throws(BlobFileError) {
        subfolders.insert(folder.path + "/" + reference.hash.prefix(2))
        var status = stat()
        let file = folder.filePath(of: reference)
        if pending[reference.hash] != nil
            || (lstat(file, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && Int(status.st_size) == stream.size)
        {
            try folder.removeFile(stream.temporaryPath)
            return
        }
        pending[reference.hash] = stream.temporaryPath
    }

    /// Makes the batch's files durable under their names: syncs their bytes, renames them into place, syncs the
    /// renames. Call it before the commit that makes rows refer to them.
    ///
    /// - Throws: ``BlobFileError`` when a sync or rename fails (the transaction must then not commit).
    mutating func publish() throws(BlobFileError) {
        guard !subfolders.isEmpty else { return }
        try syncFileSystem(files: Array(pending.values))
        for (hash, temporary) in pending {
            guard let reference = BlobReference(hash: hash) else { continue }
            let file = folder.filePath(of: reference)
            // The temporary file sits in a sub-folder of its random name; the file's own may not exist yet.
            try folder.makeFolder(folder.path + "/" + hash.prefix(2), parent: folder.path)
            guard rename(temporary, file) == 0 else { throw BlobFileError(operation: "rename", path: file, errno: errno) }
        }
        try syncFileSystem(folders: subfolders)
        pending.removeAll()
        subfolders.removeAll()
    }

    /// Removes the temporary files not yet published (after a failure). Failures are left for the sweep.
    mutating func discard() {
        for temporary in pending.values { unlink(temporary) }
        pending.removeAll()
        subfolders.removeAll()
    }

    /// Syncs the file system that holds the folder (`syncfs`, one call for every file), or, where the C library
    /// has no `syncfs`, each of `files` and `folders` on its own.
    private func syncFileSystem(files: [String] = [], folders: Set<String> = []) throws(BlobFileError) {
        if let syncfs = Self.syncfs {
            let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw BlobFileError(operation: "open", path: folder.path, errno: errno) }
            defer { close(descriptor) }
            guard syncfs(descriptor) == 0 else {
                throw BlobFileError(operation: "syncfs", path: folder.path, errno: errno)
            }
            return
        }
        for file in files {
            let descriptor = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { throw BlobFileError(operation: "open", path: file, errno: errno) }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else { throw BlobFileError(operation: "fsync", path: file, errno: errno) }
        }
        for subfolder in folders.sorted() { try folder.syncFolder(subfolder) }
    }

    /// Linux's `syncfs(2)`, looked up at run time: the C library declares it only for GNU sources, which Swift's
    /// import of it leaves out.
    private static var syncfs: (@convention(c) (Int32) -> Int32)? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }
}
