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

    /// Ends the chunk: puts its dictionary page, when a page used it, into the chunk's buffer, readies the writer for
    /// the next chunk, and returns the chunk to write out once its pages are in (see ``ParquetSealedChunk``). The open
    /// page must have been written (``writePage()``); the other pages may still be compressing.
    ///
    /// - Throws: ``FerryIOError`` when compressing the dictionary page fails.
    mutating func sealChunk() throws -> ParquetSealedChunk {
        precondition(pageValues == 0, "a chunk sealed with its last page still open")
        var dictionaryBytes = 0
        if wroteDictionaryPage {
            let entries = dictionary.count
            var thrift = self.thrift
            let (pages, chunk) = (self.pages, self.chunk)
            try dictionary.withPlainBytes { page in
                try pages.compressNow(page) { compressed in
                    thrift.reset()
                    thrift.writeDictionaryPageHeader(
                        uncompressedSize: page.count, compressedSize: compressed.count, entryCount: entries)
                    chunk.setDictionaryPage(header: thrift.bytes, body: compressed)
                }
            }
            dictionaryBytes = thrift.bytes.count + dictionary.plainCount
            self.thrift = thrift
        }
        var encodings: [Int32] = []
        if wroteDictionaryPage || wrotePlainPage { encodings.append(ParquetFormat.plainEncoding) }
        if wroteDictionaryPage { encodings.append(ParquetFormat.rleDictionaryEncoding) }
        if isOptional { encodings.append(ParquetFormat.rleEncoding) }
        let sealed = ParquetSealedChunk(
            buffer: chunk, encodings: encodings, valueCount: Int64(chunkValues), nullCount: statistics.nullCount,
            range: statistics.encodedRange(physical), dictionaryPageUncompressedBytes: dictionaryBytes)
        chunkEncoded = 0
        chunkValues = 0
        wroteDictionaryPage = false
        wrotePlainPage = false
        dictionary.reset()
        usesDictionary = dictionaryEncodes
        probeRemaining = dictionaryEncodes ? Self.cardinalityProbe : 0
        statistics.reset()
        return sealed
    }
}
