/// Encodes one column's values into pages and gathers a row group's column chunk until it is written.
///
/// Values are dictionary-encoded (RLE_DICTIONARY indices over a PLAIN dictionary page) until the chunk's
/// dictionary passes ``ParquetWriter/Options/dictionaryBytes``; from the next page on they are PLAIN (the
/// dictionary page still serves the pages before). Booleans are always PLAIN. A page ends when its values reach
/// ``ParquetWriter/Options/pageBytes``; it is handed to the writer's ``ParquetPageQueue``, which compresses it into
/// the chunk's ``ParquetChunkBuffer`` (the first 256 KiB in memory and the rest in a temporary file, so memory does
/// not grow with row groups).
///
/// A value type kept in memory the ``ParquetWriter`` owns and mutated in place: writing a value takes neither a
/// reference count nor an exclusivity check.
struct ParquetColumnWriter {
    let column: ParquetColumn
    let physical: ParquetPhysicalType
    let isOptional: Bool
    let pageBytes: Int
    let dictionaryBytes: Int
    let dictionaryEncodes: Bool
    var dictionary: ParquetDictionary
    var usesDictionary: Bool
    var statistics: ParquetStatistics

    // The current page.
    var levels: [UInt8] = []
    var indices: [UInt32] = []
    var plain: [UInt8] = []
    var pageValues = 0
    var booleanBits = 0

    // The current chunk: its data pages, header and compressed body each.
    let chunk: ParquetChunkBuffer
    /// The encoded size of the chunk's pages handed over so far, before compression.
    var chunkEncoded = 0
    var chunkValues = 0
    var wroteDictionaryPage = false
    var wrotePlainPage = false

    /// Compresses the pages, shared by every column of a writer.
    let pages: ParquetPageQueue
    var thrift = ThriftCompactWriter()

    /// The most values in one page, whatever their size: bounds the levels and indices kept for a page.
    static let maxPageValues = 128 * 1024

    init(
        column: ParquetColumn, options: ParquetWriter.Options, chunk: ParquetChunkBuffer, pages: ParquetPageQueue
    ) {
        self.pages = pages
        self.column = column
        physical = column.type.physical
        isOptional = column.isOptional
        pageBytes = options.pageBytes
        dictionaryBytes = options.dictionaryBytes
        self.chunk = chunk
        dictionaryEncodes = options.usesDictionary && physical != .boolean
        dictionary = ParquetDictionary(isLengthPrefixed: physical == .byteArray, plainLimit: options.dictionaryBytes)
        usesDictionary = dictionaryEncodes
        statistics = ParquetStatistics(order: column.type.order)
        // Room for a whole page up front: growing by doubling past the page size would keep twice the memory.
        plain.reserveCapacity(pageBytes + 64 * 1024)
        indices.reserveCapacity(min(pageBytes / 4, Self.maxPageValues) + 1)
        levels.reserveCapacity(Self.maxPageValues + 1)
    }

    /// The current chunk's encoded size before compression, with an estimate of the open page. It counts the pages
    /// as encoded, not as compressed, so that where row groups end does not hang on how far compression has come.
    var bufferedBytes: Int { chunkEncoded + plain.count + indices.count }

    // MARK: Values

    @inline(__always)
    mutating func appendNull() throws {
        levels.append(0)
        statistics.addNull()
        try endValue()
    }

    @inline(__always)
    mutating func append(integer value: Int64) throws {
        if isOptional { levels.append(1) }
        statistics.add(integer: value)
        switch physical {
        case .boolean:
            if booleanBits & 7 == 0 { plain.append(0) }
            if value != 0 { plain[plain.count - 1] |= 1 << UInt8(booleanBits & 7) }
            booleanBits += 1
            try endValue()
        case .int32:
            try withUnsafeBytes(of: Int32(truncatingIfNeeded: value).littleEndian) { try appendFixed($0) }
        default:
            try withUnsafeBytes(of: value.littleEndian) { try appendFixed($0) }
        }
    }

    @inline(__always)
    mutating func append(real value: Double) throws {
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
    mutating func append(bytes value: UnsafeRawBufferPointer) throws {
        if usesDictionary && value.count > dictionaryBytes {
            // One value larger than the whole dictionary may be: PLAIN from here on (the page so far ends first).
            try fallBackToPlain()
        }
        if isOptional { levels.append(1) }
        if usesDictionary {
            // Only a new entry can move the minimum or maximum.
            if try appendIndex(of: value) { statistics.add(bytes: value) }
            return
        }
        statistics.add(bytes: value)
        if physical == .byteArray {
            withUnsafeBytes(of: UInt32(value.count).littleEndian) { plain.append(contentsOf: $0) }
        }
        plain.append(contentsOf: value)
        try endValue()
    }

    /// Adds a fixed-width value's little-endian bytes to the page.
    @inline(__always)
    private mutating func appendFixed(_ value: UnsafeRawBufferPointer) throws {
        if usesDictionary {
            _ = try appendIndex(of: value)
            return
        }
        plain.append(contentsOf: value)
        try endValue()
    }

    /// Adds `value`'s dictionary index to the page; returns whether the value was new to the dictionary.
    @inline(__always)
    private mutating func appendIndex(of value: UnsafeRawBufferPointer) throws -> Bool {
        let (index, isNew) = dictionary.index(of: value)
        indices.append(index)
        pageValues += 1
        if dictionary.plainCount > dictionaryBytes {
            try fallBackToPlain()
        } else if indices.count * 4 >= pageBytes || pageValues >= Self.maxPageValues {
            try writePage()
        }
        return isNew
    }

    @inline(__always)
    private mutating func endValue() throws {
        pageValues += 1
        if plain.count >= pageBytes || indices.count * 4 >= pageBytes || pageValues >= Self.maxPageValues {
            try writePage()
        }
    }

    /// Ends the dictionary-encoded page and writes PLAIN pages for the rest of the chunk.
    private mutating func fallBackToPlain() throws {
        if pageValues > 0 { try writePage() }
        usesDictionary = false
    }
}
