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
struct ParquetSealedRowGroup {
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
    let output: OutputFile
    let rowGroups: [ParquetRowGroupMetadata]
    let last: ParquetSealedRowGroup?
    let pages: ParquetPageQueue.PagesHandedOver
    let columns: [ParquetColumn]
    let codec: Int32
    let rows: Int

    init(
        output: OutputFile, rowGroups: [ParquetRowGroupMetadata], last: ParquetSealedRowGroup?,
        pages: ParquetPageQueue.PagesHandedOver, columns: [ParquetColumn], codec: Int32, rows: Int
    ) {
        self.output = output
        self.rowGroups = rowGroups
        self.last = last
        self.pages = pages
        self.columns = columns
        self.codec = codec
        self.rows = rows
    }

    /// Waits for the pages, writes the rest of the file and moves it into place.
    ///
    /// - Throws: ``FerryIOError`` when compressing a page, writing, syncing or renaming fails; the destination is then
    ///   untouched.
    func complete() throws -> ParquetFinishedFile {
        try pages.wait()
        var rowGroups = self.rowGroups
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
