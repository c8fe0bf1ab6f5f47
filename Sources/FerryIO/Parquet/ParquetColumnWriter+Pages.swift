extension ParquetColumnWriter {
    /// Encodes the open page (definition levels, then values), compresses it and adds it to the chunk.
    ///
    /// - Throws: ``FerryIOError`` when compression fails.
    mutating func writePage() throws {
        guard pageValues > 0 else { return }
        // The page scratch is shared by all columns: taken here, given back at the end.
        var body = scratch.take()
        defer { scratch.giveBack(body) }
        if isOptional {
            // Data page v1: the levels' byte length (4 bytes, little-endian), then the levels.
            body.append(contentsOf: [0, 0, 0, 0] as [UInt8])
            levels.withUnsafeBufferPointer { ParquetHybridEncoder.encode($0, bitWidth: 1, into: &body) }
            let length = UInt32(body.count - 4)
            for position in 0..<4 { body[position] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(position))) }
        }
        let encoding: Int32
        if usesDictionary {
            let width = max(1, ParquetHybridEncoder.bitWidth(forMaximum: dictionary.count - 1))
            body.append(UInt8(width))
            indices.withUnsafeBufferPointer { ParquetHybridEncoder.encode($0, bitWidth: width, into: &body) }
            encoding = ParquetFormat.rleDictionaryEncoding
            wroteDictionaryPage = true
        } else {
            body.append(contentsOf: plain)
            encoding = ParquetFormat.plainEncoding
            wrotePlainPage = true
        }
        let valueCount = pageValues
        var thrift = self.thrift
        let chunk = self.chunk
        let compressor = self.compressor
        try body.withUnsafeBytes { page in
            try compressor.compress(page) { compressed in
                thrift.reset()
                thrift.writeDataPageHeader(
                    uncompressedSize: page.count, compressedSize: compressed.count, valueCount: valueCount,
                    encoding: encoding)
                try thrift.bytes.withUnsafeBytes { try chunk.append($0) }
                try chunk.append(compressed)
            }
        }
        chunkUncompressed += thrift.bytes.count + body.count
        self.thrift = thrift
        chunkValues += valueCount
        pageValues = 0
        booleanBits = 0
        levels.removeAll(keepingCapacity: true)
        indices.removeAll(keepingCapacity: true)
        plain.removeAll(keepingCapacity: true)
    }

    /// Writes the chunk (its dictionary page first, when a page used it) to `output` and readies the writer for the
    /// next row group; returns what the footer records about it.
    ///
    /// - Throws: ``FerryIOError`` when compressing or writing fails.
    mutating func finishChunk(into output: OutputFile) throws -> ParquetChunkMetadata {
        try writePage()
        var uncompressed = chunkUncompressed
        var compressedTotal = chunk.count
        var dictionaryOffset: Int64?
        if wroteDictionaryPage {
            dictionaryOffset = Int64(output.bytesWritten)
            let entries = dictionary.count
            var thrift = self.thrift
            var headerBytes = 0
            var compressedBytes = 0
            let compressor = self.compressor
            try dictionary.withPlainBytes { page in
                try compressor.compress(page) { compressed in
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
        chunkUncompressed = 0
        chunkValues = 0
        wroteDictionaryPage = false
        wrotePlainPage = false
        dictionary.reset()
        usesDictionary = dictionaryEncodes
        statistics.reset()
        return metadata
    }
}
