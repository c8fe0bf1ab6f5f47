internal import CSQLite3

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Gathers the writes SQLite makes to one write-ahead log file into one buffer, so the log is written in large
/// pieces instead of two small `pwrite` calls per frame (a 24-byte frame header, then the page).
///
/// Each small write into a part of the file the kernel has not cached yet costs a page-cache allocation and the
/// zeroing of the rest of a file block; a large write covers whole blocks. Committed frames never wait in the
/// buffer: a frame header that marks a commit (its bytes 4–7, the database size after the commit, are not zero)
/// is written through, after the buffered frames, and so is the page that follows it, all before SQLite publishes
/// the commit in the shared-memory index. Other connections read only committed frames, so they never miss a
/// buffered one; this connection's own reads are served from the buffer where they overlap it. Syncing,
/// truncating, asking for the size and closing write the buffer first. A crash loses only buffered frames of a
/// transaction that had not committed, which SQLite ignores anyway.
///
/// Used by ``BufferedLogVFS`` for files SQLite opens as write-ahead logs, from one connection at a time (SQLite
/// serializes a connection's calls into its files).
final class LogWriteBuffer {
    /// The size of a WAL frame header, and the offset in it of the database size a commit frame records.
    private static let frameHeaderSize = 24
    private static let commitSizeOffset = 4

    /// The file of the underlying VFS (in memory owned by SQLite, after the buffered file's own fields).
    let file: UnsafeMutablePointer<sqlite3_file>
    /// How many bytes the buffer holds before it is written.
    let capacity: Int
    /// Allocated at the first buffered write: connections that only read a log never hold a buffer.
    private var storage: UnsafeMutableRawPointer?
    /// The file offset of the buffer's first byte, and how many bytes it holds.
    private var start: Int64 = 0
    private var count = 0
    /// Set by a commit frame's header: the write after it (the commit frame's page) goes to the file at once.
    private var writesThroughNext = false
    /// The end of the furthest write that reached the file or the buffer: where the log grows.
    private var written: Int64 = 0

    /// A buffer over `file`, an open file of the underlying VFS.
    init(file: UnsafeMutablePointer<sqlite3_file>, capacity: Int) {
        self.file = file
        self.capacity = capacity
    }

    deinit {
        storage?.deallocate()
    }

    /// The end of the buffered range (its file offset).
    private var end: Int64 { start + Int64(count) }

    /// Writes `amount` bytes at `offset`: into the buffer when they extend or overwrite its range, otherwise after
    /// writing the buffer out; through to the file when they belong to a commit frame or fill the buffer alone.
    func write(_ bytes: UnsafeRawPointer, amount: Int32, offset: Int64) -> Int32 {
        let length = Int(amount)
        // The log header at offset 0: the log starts again from its beginning (its frames after it).
        if offset == 0 { written = 0 }
        if length == Self.frameHeaderSize && Self.marksCommit(bytes) {
            // A commit frame: everything before it reaches the file first, then the frame itself.
            writesThroughNext = true
            return writeThrough(bytes, amount: amount, offset: offset)
        }
        if writesThroughNext {
            writesThroughNext = false
            return writeThrough(bytes, amount: amount, offset: offset)
        }
        if count > 0 && offset >= start && offset + Int64(length) <= end {
            // A page of the running transaction written again: SQLite overwrites its frame in place.
            (storage.unsafelyUnwrapped + Int(offset - start)).copyMemory(from: bytes, byteCount: length)
            return SQLITE_OK
        }
        if count > 0 && offset == end && count + length <= capacity {
            (storage.unsafelyUnwrapped + count).copyMemory(from: bytes, byteCount: length)
            count += length
            written = max(written, end)
            return SQLITE_OK
        }
        let status = flush()
        guard status == SQLITE_OK else { return status }
        // A frame rewritten below the end of the log (its checksum, or a page written again after it left the
        // buffer) goes to the file: only the log's growth is gathered.
        guard length < capacity && offset >= written else { return realWrite(bytes, amount: amount, offset: offset) }
        let buffer = storage ?? UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        storage = buffer
        buffer.copyMemory(from: bytes, byteCount: length)
        start = offset
        count = length
        written = max(written, end)
        return SQLITE_OK
    }

    /// Reads `amount` bytes at `offset` into `bytes`: from the buffer when they lie inside it, from the file
    /// otherwise (after writing the buffer out, when the range overlaps it in part).
    func read(into bytes: UnsafeMutableRawPointer, amount: Int32, offset: Int64) -> Int32 {
        let length = Int64(amount)
        if count > 0 && offset < end && offset + length > start {
            if offset >= start && offset + length <= end, let storage {
                bytes.copyMemory(from: storage + Int(offset - start), byteCount: Int(amount))
                return SQLITE_OK
            }
            let status = flush()
            guard status == SQLITE_OK else { return status }
        }
        guard let methods = file.pointee.pMethods, let read = methods.pointee.xRead else {
            return SQLiteIOErrorCode.read
        }
        return read(file, bytes, amount, offset)
    }

    /// Writes the buffered bytes to the file and empties the buffer.
    func flush() -> Int32 {
        guard count > 0, let storage else { return SQLITE_OK }
        let status = realWrite(storage, amount: Int32(count), offset: start)
        // On failure the bytes are dropped too: SQLite rolls the transaction back after a write error.
        count = 0
        return status
    }

    /// Writes the buffer out before the file is cut to `size` bytes, past which the log no longer grows.
    func truncated(to size: Int64) -> Int32 {
        let status = flush()
        written = min(written, size)
        return status
    }

    /// Writes the buffer, then `bytes`, to the file.
    private func writeThrough(_ bytes: UnsafeRawPointer, amount: Int32, offset: Int64) -> Int32 {
        let status = flush()
        guard status == SQLITE_OK else { return status }
        return realWrite(bytes, amount: amount, offset: offset)
    }

    private func realWrite(_ bytes: UnsafeRawPointer, amount: Int32, offset: Int64) -> Int32 {
        written = max(written, offset + Int64(amount))
        guard let methods = file.pointee.pMethods, let write = methods.pointee.xWrite else {
            return SQLiteIOErrorCode.write
        }
        return write(file, bytes, amount, offset)
    }

    /// Whether a 24-byte frame header records a database size, which only a transaction's commit frame does.
    private static func marksCommit(_ header: UnsafeRawPointer) -> Bool {
        header.loadUnaligned(fromByteOffset: commitSizeOffset, as: UInt32.self) != 0
    }
}
