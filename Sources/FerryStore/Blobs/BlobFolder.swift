import Foundation

/// The folder beside a store file that holds its externally stored binary values: `<store path>-blobs/`, next to
/// SQLite's `-wal` and `-shm` files.
///
/// ```
/// catalog.sqlite
/// catalog.sqlite-wal
/// catalog.sqlite-blobs/
///     9f/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
///     9f/9f86d0….tmp          a write in progress (or left by a crash; the sweep removes it)
/// ```
///
/// Each file holds exactly the value's bytes and is named by their SHA-256 (see ``BlobReference``), under a
/// sub-folder named by its first two hex digits, so no folder grows past a few thousand entries. Paths are only
/// ever built from a validated reference, and files are opened with `O_NOFOLLOW`, so nothing a column holds can
/// reach outside the folder. An in-memory store has no folder: it keeps every value inline.
struct BlobFolder: Sendable, Hashable {
    /// The folder's path.
    let path: String

    /// The folder of the store at `databasePath`, or `nil` for an in-memory or temporary database.
    init?(databasePath: String) {
        guard !databasePath.isEmpty, databasePath != ":memory:", !databasePath.hasPrefix("file:") else { return nil }
        self.path = databasePath + "-blobs"
    }

    /// Where the file of `reference` lives.
    func filePath(of reference: BlobReference) -> String {
        path + "/" + reference.relativePath
    }

    /// The temporary file a write of `reference` goes through.
    func temporaryPath(of reference: BlobReference) -> String {
        filePath(of: reference) + Self.temporarySuffix
    }

    /// The suffix of temporary files.
    static let temporarySuffix = ".tmp"

    // MARK: Reading

    /// The bytes of the file of `reference`.
    ///
    /// - Throws: ``StoreError`` `.blobFileMissing` when there is no such file, `.blobFileFailed` when it cannot
    ///   be read or is not a regular file.
    func read(_ reference: BlobReference) throws -> Data {
        let reader = try BlobFileReader(folder: self, reference: reference)
        var data = Data(count: reader.size)
        try data.withUnsafeMutableBytes { try reader.readExactly(into: $0) }
        return data
    }

    // MARK: Writing

    /// Writes `bytes` as the file of `reference` unless a complete one is there already: into the temporary file,
    /// synced, renamed into place, and the folder synced, so the file is whole and durable before any row can
    /// refer to it.
    ///
    /// - Returns: whether the file was created.
    /// - Throws: ``BlobFileError``.
    func write(_ bytes: UnsafeRawBufferPointer, as reference: BlobReference) throws(BlobFileError) -> Bool {
        let file = filePath(of: reference)
        var status = stat()
        if lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) == bytes.count {
            return false
        }
        let subfolder = path + "/" + reference.hash.prefix(2)
        try makeFolder(path, parent: (path as NSString).deletingLastPathComponent)
        try makeFolder(subfolder, parent: path)
        let temporary = temporaryPath(of: reference)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BlobFileError(operation: "open", path: temporary, errno: errno) }
        do throws(BlobFileError) {
            var done = 0
            while done < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw BlobFileError(operation: "write", path: temporary, errno: errno) }
                done += written
            }
            guard fsync(descriptor) == 0 else { throw BlobFileError(operation: "fsync", path: temporary, errno: errno) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, file) == 0 else {
            let code = errno
            unlink(temporary)
            throw BlobFileError(operation: "rename", path: file, errno: code)
        }
        try syncFolder(subfolder)
        return true
    }

    /// Removes the file at `file` (a missing file is not an error).
    ///
    /// - Throws: ``BlobFileError``.
    func removeFile(_ file: String) throws(BlobFileError) {
        guard unlink(file) == 0 || errno == ENOENT else {
            throw BlobFileError(operation: "unlink", path: file, errno: errno)
        }
    }

    /// Creates `folder` (in `parent`) unless it exists, syncing `parent` so the new entry survives a power loss.
    func makeFolder(_ folder: String, parent: String) throws(BlobFileError) {
        guard mkdir(folder, 0o755) == 0 else {
            guard errno == EEXIST else { throw BlobFileError(operation: "mkdir", path: folder, errno: errno) }
            return
        }
        try syncFolder(parent.isEmpty ? "." : parent)
    }

    /// Syncs `folder`'s entries (a rename is durable only once its folder is synced).
    func syncFolder(_ folder: String) throws(BlobFileError) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BlobFileError(operation: "open", path: folder, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw BlobFileError(operation: "fsync", path: folder, errno: errno) }
    }

    // MARK: Listing

    /// One entry of the folder: a sub-folder's file, by its name.
    struct Entry: Hashable {
        /// `<sub-folder>/<name>`, relative to the folder.
        var relativePath: String
        /// The blob the file is (or is becoming), when its name is a hash or a hash's temporary file in the right
        /// sub-folder; `nil` for any other name.
        var reference: BlobReference?
        /// Whether it is a temporary file.
        var isTemporary: Bool
    }

    /// The files in the folder's two-digit sub-folders (none when the folder does not exist). Other entries of
    /// the folder are not listed: the store never touches what it did not write.
    ///
    /// - Throws: ``BlobFileError`` when a folder cannot be listed.
    func entries() throws(BlobFileError) -> [Entry] {
        var entries: [Entry] = []
        let subfolders: [String]
        do {
            subfolders = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            if !FileManager.default.fileExists(atPath: path) { return [] }
            throw BlobFileError(operation: "list", path: path, errno: EIO)
        }
        for subfolder in subfolders.sorted() where subfolder.utf8.count == 2 && BlobReference.isHexDigits(subfolder) {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path + "/" + subfolder)
            } catch {
                continue  // a file named like a sub-folder: not ours
            }
            for name in names.sorted() {
                let isTemporary = name.hasSuffix(Self.temporarySuffix)
                let stem = isTemporary ? String(name.dropLast(Self.temporarySuffix.count)) : name
                var reference = BlobReference(hash: stem)
                if let found = reference, !found.hash.hasPrefix(subfolder) { reference = nil }
                entries.append(
                    Entry(relativePath: subfolder + "/" + name, reference: reference, isTemporary: isTemporary))
            }
        }
        return entries
    }
}
