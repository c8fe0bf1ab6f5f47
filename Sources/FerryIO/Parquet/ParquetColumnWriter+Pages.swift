extension ParquetColumnWriter {
    /// Encodes the open page (definition levels, then values) and hands it to the page queue, which compresses it
    /// into the chunk.
    ///
    /// - Throws: ``FerryIOError`` when compressing a page failed.
    mutating func writePage() throws {
        guard pageValues > 0 else { return }
        let page = pages.takeBuffer()
        if isOptional {
            // Data page v1: the levels' byte length (4 bytes, little-endian), then the levels.
            page.bytes.append(contentsOf: [0, 0, 0, 0] as [UInt8])
            ParquetHybridEncoder.encode(levels.elements, bitWidth: 1, into: &page.bytes)
            let length = UInt32(page.bytes.count - 4)
            for position in 0..<4 { page.bytes[position] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(position))) }
        }
        let encoding: Int32
        if usesDictionary {
            let width = max(1, ParquetHybridEncoder.bitWidth(forMaximum: dictionary.count - 1))
            page.bytes.append(UInt8(width))
            ParquetHybridEncoder.encode(indices.elements, bitWidth: width, into: &page.bytes)
            encoding = ParquetFormat.rleDictionaryEncoding
            wroteDictionaryPage = true
        } else {
            page.bytes.append(contentsOf: plain.bytes)
            encoding = ParquetFormat.plainEncoding
            wrotePlainPage = true
        }
        chunkEncoded += page.bytes.count
        chunkValues += pageValues
        let valueCount = pageValues
        pageValues = 0
        booleanBits = 0
        // A page written ends the chunk's probe: the chunk keeps the encoding it has.
        probeRemaining = 0
        levels.removeAll()
        indices.removeAll()
        plain.removeAll()
        try pages.submit(page, to: chunk, valueCount: valueCount, encoding: encoding)
    }

    /// Writes the chunk (its dictionary page first, when a page used it) to `output` and readies the writer for the
    /// next row group; returns what the footer records about it. The open page must have been written
    /// (``writePage()``) and the page queue waited for (``ParquetPageQueue/waitForPages()``).
    ///
    /// - Throws: ``FerryIOError`` when compressing or writing fails.
    mutating func finishChunk(into output: OutputFile) throws -> ParquetChunkMetadata {
        precondition(pageValues == 0, "a chunk finished with its last page still open")
        var uncompressed = chunk.uncompressedCount
        var compressedTotal = chunk.count
        var dictionaryOffset: Int64?
        if wroteDictionaryPage {
            dictionaryOffset = Int64(output.bytesWritten)
            let entries = dictionary.count
            var thrift = self.thrift
            var headerBytes = 0
            var compressedBytes = 0
            let pages = self.pages
            try dictionary.withPlainBytes { page in
                try pages.compressNow(page) { compressed in
                    thrift.reset()
                    thrift.writeDictionaryPageHeader(
                        uncompressedSize: page.count, compressedSize: compressed.count, entryCount: entries)
                    try thrift.bytes.withUnsafeBytes { try output.write($0) }
                    try output.write(compressed)
                    headerBytes = thrift.bytes.count
                    compressedBytes = compressed.count
                }
            }
            uncompressed += headerBytes + dictionary.plainCount
            compressedTotal += headerBytes + compressedBytes
            self.thrift = thrift
        }
        let dataOffset = Int64(output.bytesWritten)
        try chunk.drain(into: output)
        var encodings: [Int32] = []
        if wroteDictionaryPage || wrotePlainPage { encodings.append(ParquetFormat.plainEncoding) }
        if wroteDictionaryPage { encodings.append(ParquetFormat.rleDictionaryEncoding) }
        if isOptional { encodings.append(ParquetFormat.rleEncoding) }
        let metadata = ParquetChunkMetadata(
            encodings: encodings, valueCount: Int64(chunkValues), uncompressedSize: Int64(uncompressed),
            compressedSize: Int64(compressedTotal), dataPageOffset: dataOffset,
            dictionaryPageOffset: dictionaryOffset, nullCount: statistics.nullCount,
            range: statistics.encodedRange(physical))
        chunkEncoded = 0
        chunkValues = 0
        wroteDictionaryPage = false
        wrotePlainPage = false
        dictionary.reset()
        usesDictionary = dictionaryEncodes
        probeRemaining = dictionaryEncodes ? Self.cardinalityProbe : 0
        statistics.reset()
        return metadata
    }
}
