internal import CSQLite3

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A VFS over SQLite's default one whose write-ahead log files write through a ``LogWriteBuffer``; every other
/// file (databases, journals, temporary files) is the default VFS's own, untouched.
///
/// SQLite appends each frame to the log in two writes, a 24-byte header and the page. A bulk write logs tens of
/// thousands of pages per transaction, and in a log that grows each small write lands in a file block the kernel
/// has not cached: it allocates a page and zeroes the rest of the block before copying. Gathered into 64 KiB
/// writes, the frames cover whole blocks, with about 30 times fewer system calls.
///
/// A file of this VFS is laid out as the `sqlite3_file` SQLite sees (its methods), a reference to the file's
/// buffer, then the default VFS's file. Files other than logs are opened by the default VFS directly in that
/// memory, so they carry its own methods.
enum BufferedLogVFS {
    /// The name connections open files with.
    static let name = "ferry-buffered-log"
    /// How many bytes a log buffers before it writes them: 16 frames of 4 KiB pages. The default VFS writes at most
    /// 128 KiB less one byte per call (it masks the length to 17 bits), so a buffer stays below that.
    static let bufferCapacity = 1 << 16

    /// The offset of the buffer's reference in a file of this VFS, and of the default VFS's file after it.
    private static let bufferOffset = MemoryLayout<sqlite3_file>.stride
    private static let baseFileOffset = bufferOffset + MemoryLayout<UnsafeMutableRawPointer>.stride

    /// Registers the VFS (once, not as the default) and returns its name, or `nil` when SQLite has no default VFS
    /// to build on.
    static let registeredName: String? = register()

    private static func register() -> String? {
        guard let base = sqlite3_vfs_find(nil) else { return nil }
        // Registered VFSes live as long as the process: SQLite keeps the pointer.
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        var methods = base.pointee
        methods.iVersion = min(base.pointee.iVersion, 2)
        methods.szOsFile = Int32(baseFileOffset) + base.pointee.szOsFile
        methods.pNext = nil
        methods.zName = UnsafePointer(strdup(name))
        methods.pAppData = UnsafeMutableRawPointer(base)
        methods.xOpen = { vfs, name, file, flags, outFlags in
            guard let vfs, let file, let base = BufferedLogVFS.base(of: vfs), let open = base.pointee.xOpen else {
                return SQLITE_CANTOPEN
            }
            guard flags & SQLITE_OPEN_WAL != 0 else { return open(base, name, file, flags, outFlags) }
            let raw = UnsafeMutableRawPointer(file)
            let baseFile = (raw + BufferedLogVFS.baseFileOffset).assumingMemoryBound(to: sqlite3_file.self)
            let status = open(base, name, baseFile, flags, outFlags)
            guard status == SQLITE_OK else {
                // SQLite calls no method of a file that failed to open.
                file.pointee.pMethods = nil
                return status
            }
            let buffer = LogWriteBuffer(file: baseFile, capacity: BufferedLogVFS.bufferCapacity)
            raw.storeBytes(
                of: Unmanaged.passRetained(buffer).toOpaque(), toByteOffset: BufferedLogVFS.bufferOffset,
                as: UnsafeMutableRawPointer.self)
            file.pointee.pMethods = UnsafePointer(BufferedLogVFS.logMethods)
            return SQLITE_OK
        }
        // The rest is the default VFS's, called with its own object.
        methods.xDelete = { vfs, name, syncDirectory in
            guard let base = BufferedLogVFS.base(of: vfs), let delete = base.pointee.xDelete else {
                return SQLiteIOErrorCode.delete
            }
            return delete(base, name, syncDirectory)
        }
        methods.xAccess = { vfs, name, flags, result in
            guard let base = BufferedLogVFS.base(of: vfs), let access = base.pointee.xAccess else {
                return SQLiteIOErrorCode.access
            }
            return access(base, name, flags, result)
        }
        methods.xFullPathname = { vfs, name, size, output in
            guard let base = BufferedLogVFS.base(of: vfs), let full = base.pointee.xFullPathname else {
                return SQLITE_CANTOPEN
            }
            return full(base, name, size, output)
        }
        methods.xDlOpen = { vfs, name in
            guard let base = BufferedLogVFS.base(of: vfs) else { return nil }
            return base.pointee.xDlOpen?(base, name)
        }
        methods.xDlError = { vfs, size, output in
            guard let base = BufferedLogVFS.base(of: vfs) else { return }
            base.pointee.xDlError?(base, size, output)
        }
        methods.xDlSym = { vfs, handle, symbol in
            guard let base = BufferedLogVFS.base(of: vfs) else { return nil }
            return base.pointee.xDlSym?(base, handle, symbol)
        }
        methods.xDlClose = { vfs, handle in
            guard let base = BufferedLogVFS.base(of: vfs) else { return }
            base.pointee.xDlClose?(base, handle)
        }
        methods.xRandomness = { vfs, size, output in
            guard let base = BufferedLogVFS.base(of: vfs), let randomness = base.pointee.xRandomness else { return 0 }
            return randomness(base, size, output)
        }
        methods.xSleep = { vfs, microseconds in
            guard let base = BufferedLogVFS.base(of: vfs), let sleep = base.pointee.xSleep else { return 0 }
            return sleep(base, microseconds)
        }
        methods.xCurrentTime = { vfs, time in
            guard let base = BufferedLogVFS.base(of: vfs), let current = base.pointee.xCurrentTime else {
                return SQLITE_ERROR
            }
            return current(base, time)
        }
        methods.xGetLastError = { vfs, size, output in
            guard let base = BufferedLogVFS.base(of: vfs), let lastError = base.pointee.xGetLastError else { return 0 }
            return lastError(base, size, output)
        }
        methods.xCurrentTimeInt64 = { vfs, time in
            guard let base = BufferedLogVFS.base(of: vfs), let current = base.pointee.xCurrentTimeInt64 else {
                return SQLITE_ERROR
            }
            return current(base, time)
        }
        methods.xSetSystemCall = nil
        methods.xGetSystemCall = nil
        methods.xNextSystemCall = nil
        vfs.initialize(to: methods)
        guard sqlite3_vfs_register(vfs, 0) == SQLITE_OK else { return nil }
        return name
    }

    /// The default VFS this one was built on (its `pAppData`).
    private static func base(of vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs>? {
        vfs?.pointee.pAppData?.assumingMemoryBound(to: sqlite3_vfs.self)
    }

    /// The buffer of a log file of this VFS.
    private static func buffer(of file: UnsafeMutablePointer<sqlite3_file>?) -> LogWriteBuffer? {
        guard let file else { return nil }
        let reference = UnsafeMutableRawPointer(file).load(
            fromByteOffset: bufferOffset, as: UnsafeMutableRawPointer.self)
        return Unmanaged<LogWriteBuffer>.fromOpaque(reference).takeUnretainedValue()
    }

    /// The default VFS's log file inside a file of this VFS.
    private static func baseFile(of file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file>? {
        guard let file else { return nil }
        return (UnsafeMutableRawPointer(file) + baseFileOffset).assumingMemoryBound(to: sqlite3_file.self)
    }

    /// The base file's method table, for the calls that pass straight through.
    private static func baseMethods(of file: UnsafeMutablePointer<sqlite3_file>?) -> sqlite3_io_methods? {
        baseFile(of: file)?.pointee.pMethods?.pointee
    }

    /// The methods of a log file: writes and reads go through its buffer; what needs the file as it will be
    /// (its size, a sync, a truncation, closing) writes the buffer out first.
    nonisolated(unsafe) private static let logMethods: UnsafeMutablePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: sqlite3_io_methods())
        methods.pointee.iVersion = 1
        methods.pointee.xClose = { file in
            guard let file else { return SQLITE_OK }
            let reference = UnsafeMutableRawPointer(file).load(
                fromByteOffset: BufferedLogVFS.bufferOffset, as: UnsafeMutableRawPointer.self)
            let buffer = Unmanaged<LogWriteBuffer>.fromOpaque(reference)
            let flushed = buffer.takeUnretainedValue().flush()
            let baseFile = buffer.takeUnretainedValue().file
            let closed = baseFile.pointee.pMethods?.pointee.xClose?(baseFile) ?? SQLITE_OK
            buffer.release()
            file.pointee.pMethods = nil
            return flushed != SQLITE_OK ? flushed : closed
        }
        methods.pointee.xRead = { file, bytes, amount, offset in
            guard let buffer = BufferedLogVFS.buffer(of: file), let bytes else { return SQLiteIOErrorCode.read }
            return buffer.read(into: bytes, amount: amount, offset: offset)
        }
        methods.pointee.xWrite = { file, bytes, amount, offset in
            guard let buffer = BufferedLogVFS.buffer(of: file), let bytes else { return SQLiteIOErrorCode.write }
            return buffer.write(bytes, amount: amount, offset: offset)
        }
        methods.pointee.xTruncate = { file, size in
            guard let buffer = BufferedLogVFS.buffer(of: file) else { return SQLiteIOErrorCode.truncate }
            let status = buffer.truncated(to: size)
            guard status == SQLITE_OK else { return status }
            return BufferedLogVFS.baseMethods(of: file)?.xTruncate?(buffer.file, size) ?? SQLiteIOErrorCode.truncate
        }
        methods.pointee.xSync = { file, flags in
            guard let buffer = BufferedLogVFS.buffer(of: file) else { return SQLiteIOErrorCode.fsync }
            let status = buffer.flush()
            guard status == SQLITE_OK else { return status }
            return BufferedLogVFS.baseMethods(of: file)?.xSync?(buffer.file, flags) ?? SQLiteIOErrorCode.fsync
        }
        methods.pointee.xFileSize = { file, size in
            guard let buffer = BufferedLogVFS.buffer(of: file) else { return SQLiteIOErrorCode.fstat }
            let status = buffer.flush()
            guard status == SQLITE_OK else { return status }
            return BufferedLogVFS.baseMethods(of: file)?.xFileSize?(buffer.file, size) ?? SQLiteIOErrorCode.fstat
        }
        methods.pointee.xLock = { file, lock in
            BufferedLogVFS.baseMethods(of: file)?.xLock?(BufferedLogVFS.baseFile(of: file), lock) ?? SQLITE_OK
        }
        methods.pointee.xUnlock = { file, lock in
            BufferedLogVFS.baseMethods(of: file)?.xUnlock?(BufferedLogVFS.baseFile(of: file), lock) ?? SQLITE_OK
        }
        methods.pointee.xCheckReservedLock = { file, result in
            BufferedLogVFS.baseMethods(of: file)?.xCheckReservedLock?(BufferedLogVFS.baseFile(of: file), result)
                ?? SQLITE_OK
        }
        methods.pointee.xFileControl = { file, operation, argument in
            // A file control may look at the file (its size, its blocks): it sees it with every write made.
            guard let buffer = BufferedLogVFS.buffer(of: file) else { return SQLITE_NOTFOUND }
            let status = buffer.flush()
            guard status == SQLITE_OK else { return status }
            return BufferedLogVFS.baseMethods(of: file)?.xFileControl?(buffer.file, operation, argument)
                ?? SQLITE_NOTFOUND
        }
        methods.pointee.xSectorSize = { file in
            BufferedLogVFS.baseMethods(of: file)?.xSectorSize?(BufferedLogVFS.baseFile(of: file)) ?? 4096
        }
        methods.pointee.xDeviceCharacteristics = { file in
            BufferedLogVFS.baseMethods(of: file)?.xDeviceCharacteristics?(BufferedLogVFS.baseFile(of: file)) ?? 0
        }
        return methods
    }()
}
