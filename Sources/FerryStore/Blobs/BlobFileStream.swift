import Foundation

/// A blob file written piece by piece, hashed as it goes, for a value too large to hold in memory at once.
///
/// The bytes go to a temporary file with a random name in the folder's sub-folder layout
/// (`<xx>/<64 random hex digits>.tmp`, which the sweep removes if the process dies), since the file's real name, the
/// SHA-256 of its bytes, is known only at the end. ``finish()`` closes it without syncing: a ``BlobFileBatch`` makes
/// the files of a transaction durable together and renames them into place before the commit that refers to them.
/// Not `Sendable`: it owns a file descriptor.
final class BlobFileStream {
    let folder: BlobFolder
    /// The temporary file.
    let temporaryPath: String
    private var descriptor: Int32
    private var hasher = SHA256.Hasher()
    /// Bytes written so far.
    private(set) var size = 0

    /// Creates the temporary file (and the folders it needs).
    ///
    /// - Throws: ``BlobFileError`` when a folder or the file cannot be made.
    init(folder: BlobFolder) throws(BlobFileError) {
        var generator = SystemRandomNumberGenerator()
        let name = BlobReference(digest: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let subfolder = folder.path + "/" + name.hash.prefix(2)
        try folder.makeFolder(folder.path, parent: (folder.path as NSString).deletingLastPathComponent)
        try folder.makeFolder(subfolder, parent: folder.path)
        let temporary = folder.temporaryPath(of: name)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BlobFileError(operation: "open", path: temporary, errno: errno) }
        self.folder = folder
        self.temporaryPath = temporary
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends `bytes` to the file and to the hash.
    ///
    /// - Throws: ``BlobFileError`` when the write fails (a full disk).
    func append(_ bytes: UnsafeRawBufferPointer) throws(BlobFileError) {
        precondition(descriptor >= 0, "a finished blob file stream takes no more bytes")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        hasher.update(bytes)
        var done = 0
        while done < bytes.count {
            let written = Foundation.write(descriptor, base + done, bytes.count - done)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw BlobFileError(operation: "write", path: temporaryPath, errno: errno) }
            done += written
        }
        size += bytes.count
    }

    /// Closes the file and returns the reference its bytes make (their SHA-256). The file stays at
    /// ``temporaryPath``, not yet synced.
    ///
    /// - Throws: ``BlobFileError`` when closing reports a deferred write error.
    func finish() throws(BlobFileError) -> BlobReference {
        precondition(descriptor >= 0, "a blob file stream is finished once")
        let status = close(descriptor)
        descriptor = -1
        guard status == 0 else { throw BlobFileError(operation: "close", path: temporaryPath, errno: errno) }
        return BlobReference(digest: hasher.finalize())
    }

    /// Removes the temporary file (after a failure). A failure is left for the sweep.
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryPath)
    }
}
