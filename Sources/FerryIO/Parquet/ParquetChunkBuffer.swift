/// A column chunk's compressed pages while its row group is written: the data pages as they come, the first
/// ``memoryLimit`` bytes in memory and the rest in a temporary file beside the output (unlinked as soon as it is
/// opened, so nothing is left behind whatever happens), so that memory does not grow with the row group's size; and
/// its dictionary page, set once the last data page is handed over.
///
/// A chunk must reach the file in one piece, its dictionary page first, after the chunks of the columns before it;
/// ``drain(into:)`` copies it there when the row group ends.
final class ParquetChunkBuffer {
    /// Bytes kept in memory before the temporary file is used.
    let memoryLimit: Int
    /// Bytes buffered since the last ``drain(into:)``.
    private(set) var count = 0
    /// The data pages' size before compression (headers included) since the last ``drain(into:)``, for the footer.
    var uncompressedCount = 0
    private var memory: [UInt8] = []
    /// The dictionary page, header and compressed body; empty when the chunk has none.
    private(set) var dictionaryPage: [UInt8] = []
    /// The temporary file, once the chunk outgrew its memory.
    private var spill: ScratchFile?
    /// The output the temporary file is beside (and whose name errors give). A writer reopened for another file
    /// sets it to that file's (see ``ParquetWriter/reopen(at:observer:)``), and the next temporary file goes there;
    /// set to the same path, the chunk keeps its temporary file.
    var outputPath: String {
        didSet {
            if outputPath != oldValue { spill = nil }
        }
    }

    init(outputPath: String, memoryLimit: Int = 256 * 1024) {
        self.outputPath = outputPath
        self.memoryLimit = memoryLimit
    }

    /// Adds `bytes`.
    ///
    /// - Throws: ``FerryIOError`` `.io` when the temporary file cannot be created or written (a full disk).
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        if spill == nil && memory.count + bytes.count <= memoryLimit {
            memory.append(contentsOf: bytes)
            count += bytes.count
            return
        }
        let spill = try self.spill ?? ScratchFile(beside: outputPath)
        self.spill = spill
        if !memory.isEmpty {
            try memory.withUnsafeBytes { try spill.append($0) }
            memory.removeAll(keepingCapacity: true)
        }
        try spill.append(bytes)
        count += bytes.count
    }

    /// Sets the dictionary page: its `header`, then its `body` as compressed. The writer's thread sets it while the
    /// page queue may still be adding data pages on another: the two touch different properties.
    func setDictionaryPage(header: [UInt8], body: UnsafeRawBufferPointer) {
        dictionaryPage.removeAll(keepingCapacity: true)
        dictionaryPage.append(contentsOf: header)
        dictionaryPage.append(contentsOf: body)
    }

    /// Writes the dictionary page, if any, and then the data pages to `output`, and empties the buffer for the next
    /// row group.
    ///
    /// - Throws: ``FerryIOError`` `.io` when reading the temporary file or writing the output fails.
    func drain(into output: OutputFile) throws {
        defer { (count, uncompressedCount) = (0, 0) }
        if !dictionaryPage.isEmpty {
            try dictionaryPage.withUnsafeBytes { try output.write($0) }
            dictionaryPage.removeAll(keepingCapacity: true)
        }
        guard let spill else {
            try memory.withUnsafeBytes { try output.write($0) }
            memory.removeAll(keepingCapacity: true)
            return
        }
        if !memory.isEmpty {
            try memory.withUnsafeBytes { try spill.append($0) }
            memory.removeAll(keepingCapacity: true)
        }
        // Read straight into the output's buffer, in pieces of its free space.
        var offset = 0
        while offset < spill.count {
            try output.withUnsafeSpace(atLeast: min(64 * 1024, spill.count - offset)) { space in
                let piece = min(space.count, spill.count - offset)
                try spill.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: space[0..<piece]))
                offset += piece
                return piece
            }
        }
        try spill.removeAll()
    }
}
