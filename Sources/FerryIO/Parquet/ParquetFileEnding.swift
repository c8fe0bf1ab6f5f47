/// A file finished in the background (see ``ParquetWriter/finishInBackground(continuingAt:observer:completion:)``).
public struct ParquetFinishedFile: Sendable, Hashable {
    /// Where the file is.
    public let path: String
    /// Its rows.
    public let rows: Int
    /// Its size in bytes.
    public let bytes: Int
}

/// A row group whose pages are handed over and whose chunks are sealed: written out once the pages are in.
struct ParquetSealedRowGroup: @unchecked Sendable {
    // @unchecked: handed from the writer's thread to the one that writes it out; the writer no longer touches the
    // chunks' buffers until that is done.
    let chunks: [ParquetSealedChunk]
    let rows: Int

    /// Writes the chunks, in column order, to `output`; returns what the footer records about the row group.
    ///
    /// - Throws: ``FerryIOError`` when writing fails.
    func write(into output: OutputFile) throws -> ParquetRowGroupMetadata {
        let start = Int64(output.bytesWritten)
        let metadata = try chunks.map { try $0.write(into: output) }
        return ParquetRowGroupMetadata(columns: metadata, rows: Int64(rows), fileOffset: start)
    }
}

/// A file's output and its row groups written out to it in the background, in order, and the first failure: used on
/// the writer's background thread, then by the thread that completes the file, after it (see ``ParquetFileEnding``).
final class ParquetWrittenRowGroups: @unchecked Sendable {
    // @unchecked: touched by one thread at a time: the writer's serial background queue, then whoever waited for it.
    // The writer itself no longer writes to the output once it has written the file's first bytes.
    let output: OutputFile
    private var metadata: [ParquetRowGroupMetadata] = []
    private var failure: (any Error)?

    init(output: OutputFile) {
        self.output = output
    }

    /// Waits for `pages`, then writes `group` to the output and records it; after a failure, nothing more is written.
    func write(_ group: ParquetSealedRowGroup, once pages: ParquetPageQueue.PagesHandedOver) {
        guard failure == nil else { return }
        do {
            try pages.wait()
            metadata.append(try group.write(into: output))
        } catch {
            failure = error
        }
    }

    /// Throws the failure, if writing a row group failed.
    func throwFailure() throws {
        if let failure { throw failure }
    }

    /// What the footer records about the row groups written.
    ///
    /// - Throws: what writing one of them threw.
    func all() throws -> [ParquetRowGroupMetadata] {
        try throwFailure()
        return metadata
    }
}

/// A column chunk whose last page is handed over: what the footer records about it that is known then, and its
/// buffer, written out once the page queue has put every page in (see ``ParquetPageQueue``).
struct ParquetSealedChunk {
    let buffer: ParquetChunkBuffer
    let encodings: [Int32]
    let valueCount: Int64
    let nullCount: Int64
    let range: (min: [UInt8], max: [UInt8])?
    /// The dictionary page's header and values before compression; 0 without one.
    let dictionaryPageUncompressedBytes: Int

    /// Writes the chunk, its dictionary page first, to `output`; returns what the footer records about it. Every page
    /// handed over for the chunk must be in its buffer.
    ///
    /// - Throws: ``FerryIOError`` when writing fails.
    func write(into output: OutputFile) throws -> ParquetChunkMetadata {
        let start = Int64(output.bytesWritten)
        let dictionaryPageBytes = buffer.dictionaryPage.count
        let uncompressed = buffer.uncompressedCount + dictionaryPageUncompressedBytes
        let compressed = buffer.count + dictionaryPageBytes
        try buffer.drain(into: output)
        return ParquetChunkMetadata(
            encodings: encodings, valueCount: valueCount, uncompressedSize: Int64(uncompressed),
            compressedSize: Int64(compressed), dataPageOffset: start + Int64(dictionaryPageBytes),
            dictionaryPageOffset: dictionaryPageBytes > 0 ? start : nil, nullCount: nullCount, range: range)
    }
}

/// What is left of a file once its last pages are handed over: waiting for them, writing the last row group and the
/// footer, and moving the file into place.
final class ParquetFileEnding: @unchecked Sendable {
    // @unchecked: made on the writer's thread and then used by one thread alone, the one that completes it; the writer
    // no longer touches the output or the sealed chunks' buffers.
    let rowGroups: ParquetWrittenRowGroups
    let last: ParquetSealedRowGroup?
    let pages: ParquetPageQueue.PagesHandedOver
    let columns: [ParquetColumn]
    let codec: Int32
    let rows: Int

    init(
        rowGroups: ParquetWrittenRowGroups, last: ParquetSealedRowGroup?,
        pages: ParquetPageQueue.PagesHandedOver, columns: [ParquetColumn], codec: Int32, rows: Int
    ) {
        self.rowGroups = rowGroups
        self.last = last
        self.pages = pages
        self.columns = columns
        self.codec = codec
        self.rows = rows
    }

    /// Waits for the pages, writes the rest of the file and moves it into place; the row groups before the last must
    /// be written out.
    ///
    /// - Throws: ``FerryIOError`` when compressing a page, writing, syncing or renaming fails; the destination is then
    ///   untouched.
    func complete() throws -> ParquetFinishedFile {
        let output = self.rowGroups.output
        var rowGroups = try self.rowGroups.all()
        try pages.wait()
        if let last { rowGroups.append(try last.write(into: output)) }
        var thrift = ThriftCompactWriter()
        thrift.writeFileMetadata(
            columns: columns, rowGroups: rowGroups, codec: codec, createdBy: "ferry version \(FerryVersion.current)")
        try thrift.bytes.withUnsafeBytes { try output.write($0) }
        try withUnsafeBytes(of: UInt32(thrift.bytes.count).littleEndian) { try output.write($0) }
        try ParquetFormat.magic.withUnsafeBytes { try output.write($0) }
        try output.commit()
        return ParquetFinishedFile(path: output.path, rows: rows, bytes: output.bytesWritten)
    }
}
