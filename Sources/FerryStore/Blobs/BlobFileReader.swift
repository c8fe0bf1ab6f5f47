import Foundation

/// One blob file opened for reading, read whole (``BlobFolder/read(_:)``) or piece by piece into the caller's
/// buffer, so a large value never has to be in memory at once.
///
/// Opened with `O_NOFOLLOW` from a validated reference only (see ``BlobFolder``); it must be a regular file. Not
/// `Sendable`: it owns a file descriptor, closed when it goes away.
final class BlobFileReader {
    /// The file's path.
    let path: String
    /// Its size in bytes when it was opened.
    let size: Int
    private let descriptor: Int32

    /// Opens the file of `reference` in `folder`.
    ///
    /// - Throws: ``StoreError`` `.blobFileMissing` when there is no such file, `.blobFileFailed` when it cannot be
    ///   opened or is not a regular file.
    init(folder: BlobFolder, reference: BlobReference) throws {
        let file = folder.filePath(of: reference)
        let descriptor = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                throw StoreError(
                    .blobFileMissing,
                    "the blob file of \(reference) is missing from the blob folder (was the folder copied with "
                        + "the store?)", path: file)
            }
            throw StoreError.blobFile("reading a blob", BlobFileError(operation: "open", path: file, errno: code))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw StoreError.blobFile("reading a blob", BlobFileError(operation: "fstat", path: file, errno: code))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw StoreError(.blobFileFailed, "the blob file of \(reference) is not a regular file", path: file)
        }
        self.path = file
        self.size = Int(status.st_size)
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Fills `buffer` with the file's next bytes; fewer only at the end of the file.
    ///
    /// - Returns: how many bytes were read (0 at the end).
    /// - Throws: ``StoreError`` `.blobFileFailed` when reading fails.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let read = Foundation.read(descriptor, base + done, buffer.count - done)
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else {
                throw StoreError.blobFile("reading a blob", BlobFileError(operation: "read", path: path, errno: errno))
            }
            if read == 0 { break }
            done += read
        }
        return done
    }

    /// Reads exactly `buffer.count` bytes.
    ///
    /// - Throws: ``StoreError`` `.blobFileFailed` when reading fails or the file ends first (it shrank).
    func readExactly(into buffer: UnsafeMutableRawBufferPointer) throws {
        guard try read(into: buffer) == buffer.count else {
            throw StoreError.blobFile("reading a blob", BlobFileError(operation: "read", path: path, errno: EIO))
        }
    }
}
