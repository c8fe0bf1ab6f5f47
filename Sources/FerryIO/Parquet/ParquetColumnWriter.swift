/// Encodes one column's values into pages and gathers a row group's column chunk in memory until it is written.
///
/// Values are dictionary-encoded (RLE_DICTIONARY indices over a PLAIN dictionary page) until the chunk's
/// dictionary passes ``ParquetWriter/Options/dictionaryBytes``; from the next page on they are PLAIN (the
/// dictionary page still serves the pages before). Booleans are always PLAIN. A page ends when its values reach
/// ``ParquetWriter/Options/pageBytes``; it is compressed at once, so a buffered chunk is compressed bytes.
final class ParquetColumnWriter {
    let column: ParquetColumn
    let physical: ParquetPhysicalType
    let isOptional: Bool
    private let pageBytes: Int
    let dictionaryBytes: Int
    let compressor: ParquetCompressor
    let dictionary: ParquetDictionary?
    var usesDictionary: Bool
    var statistics: ParquetStatistics

    // The current page.
    var levels: [UInt32] = []
    var indices: [UInt32] = []
    var plain: [UInt8] = []
    var pageValues = 0
    var booleanBits = 0

    // The current chunk: its pages, header and compressed body each.
    var chunk: [UInt8] = []
    var chunkUncompressed = 0
    var chunkValues = 0
    var wroteDictionaryPage = false
    var wrotePlainPage = false

    // Scratch reused from page to page.
    var body: [UInt8] = []
    var thrift = ThriftCompactWriter()

    init(column: ParquetColumn, options: ParquetWriter.Options, compressor: ParquetCompressor) {
        self.column = column
        physical = column.type.physical
        isOptional = column.isOptional
        pageBytes = options.pageBytes
        dictionaryBytes = options.dictionaryBytes
        self.compressor = compressor
        let dictionaryEncodes = options.usesDictionary && physical != .boolean
        dictionary = dictionaryEncodes ? ParquetDictionary(isLengthPrefixed: physical == .byteArray) : nil
        usesDictionary = dictionaryEncodes
        statistics = ParquetStatistics(order: column.type.order)
    }

    /// Compressed bytes buffered for the current chunk, with an estimate of the open page.
    var bufferedBytes: Int { chunk.count + plain.count + indices.count }

    // MARK: Values

    @inline(__always)
    func appendNull() throws {
        levels.append(0)
        statistics.addNull()
        try endValue()
    }

    @inline(__always)
    func append(integer value: Int64) throws {
        if isOptional { levels.append(1) }
        statistics.add(integer: value)
        switch physical {
        case .boolean:
            if booleanBits & 7 == 0 { plain.append(0) }
            if value != 0 { plain[plain.count - 1] |= 1 << UInt8(booleanBits & 7) }
            booleanBits += 1
        case .int32:
            try withUnsafeBytes(of: Int32(truncatingIfNeeded: value).littleEndian) { try appendFixed($0) }
            return
        default:
            try withUnsafeBytes(of: value.littleEndian) { try appendFixed($0) }
            return
        }
        try endValue()
    }

    @inline(__always)
    func append(real value: Double) throws {
        if isOptional { levels.append(1) }
        statistics.add(real: value)
        if physical == .float {
            try withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { try appendFixed($0) }
        } else {
            try withUnsafeBytes(of: value.bitPattern.littleEndian) { try appendFixed($0) }
        }
    }

    /// A byte array's bytes, or a fixed-length value's exactly ``ParquetValueType/fixedLength`` bytes.
    @inline(__always)
    func append(bytes value: UnsafeRawBufferPointer) throws {
        if usesDictionary && value.count > dictionaryBytes {
            // One value larger than the whole dictionary may be: PLAIN from here on (the page so far ends first).
            try fallBackToPlain()
        }
        if isOptional { levels.append(1) }
        statistics.add(bytes: value)
        if usesDictionary { return try appendIndex(of: value) }
        if physical == .byteArray {
            withUnsafeBytes(of: UInt32(value.count).littleEndian) { plain.append(contentsOf: $0) }
        }
        plain.append(contentsOf: value)
        try endValue()
    }

    /// Adds a fixed-width value's little-endian bytes to the page.
    @inline(__always)
    private func appendFixed(_ value: UnsafeRawBufferPointer) throws {
        if usesDictionary { return try appendIndex(of: value) }
        plain.append(contentsOf: value)
        try endValue()
    }

    @inline(__always)
    private func appendIndex(of value: UnsafeRawBufferPointer) throws {
        guard let dictionary else { preconditionFailure("a column without a dictionary uses one") }
        indices.append(dictionary.index(of: value).index)
        pageValues += 1
        if dictionary.plain.count > dictionaryBytes {
            try fallBackToPlain()
        } else if indices.count * 4 >= pageBytes {
            try writePage()
        }
    }

    @inline(__always)
    private func endValue() throws {
        pageValues += 1
        if plain.count >= pageBytes || indices.count * 4 >= pageBytes { try writePage() }
    }

    /// Ends the dictionary-encoded page and writes PLAIN pages for the rest of the chunk.
    private func fallBackToPlain() throws {
        if pageValues > 0 { try writePage() }
        usesDictionary = false
    }
}
