/// Encodes one column's values into pages and gathers a row group's column chunk until it is written.
///
/// Values are dictionary-encoded (RLE_DICTIONARY indices over a PLAIN dictionary page) until the chunk's
/// dictionary passes ``ParquetWriter/Options/dictionaryBytes``; from the next page on they are PLAIN (the
/// dictionary page still serves the pages before). A chunk whose first ``cardinalityProbe`` values are nearly all
/// distinct is PLAIN from the start, without a dictionary page. Booleans are always PLAIN. A page ends when its values reach
/// ``ParquetWriter/Options/pageBytes``; it is handed to the writer's ``ParquetPageQueue``, which compresses it into
/// the chunk's ``ParquetChunkBuffer`` (the first 256 KiB in memory and the rest in a temporary file, so memory does
/// not grow with row groups).
///
/// A value type kept in memory the ``ParquetWriter`` owns and mutated in place: writing a value takes neither a
/// reference count nor an exclusivity check.
struct ParquetColumnWriter {
    let column: ParquetColumn
    /// Whether the column is a UUID column written as text (see ``ParquetWriter/Options/writesUUIDsAsText``): its
    /// values come as 16 bytes and go into the page as their lower-case text.
    let writesUUIDText: Bool
    let physical: ParquetPhysicalType
    let isOptional: Bool
    let pageBytes: Int
    let dictionaryBytes: Int
    let dictionaryEncodes: Bool
    var dictionary: ParquetDictionary
    var usesDictionary: Bool
    var statistics: ParquetStatistics

    // The current page.
    var levels: ParquetBuffer<UInt8>
    var indices: ParquetBuffer<UInt32>
    var plain: ParquetBuffer<UInt8>
    var pageValues = 0
    var booleanBits = 0
    /// Values of the chunk still to be written both as dictionary indices and as PLAIN before the writer decides
    /// which to keep (see ``cardinalityProbe``); 0 once decided.
    var probeRemaining = 0

    /// The current chunk: its data pages, header and compressed body each. The writer writes a row group out in the
    /// background and gives the next row group's chunks buffers of their own meanwhile (see ``ParquetWriter``).
    var chunk: ParquetChunkBuffer
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
    /// The values at the start of each chunk from which the writer judges whether a dictionary is worth it: when at
    /// least nine in ten of them are distinct, the chunk's values are written PLAIN from the start, without a
    /// dictionary page. Such a column (keys, timestamps, free text, measured values) would fill the dictionary to its
    /// limit and fall back to PLAIN anyway, after hashing and storing every value up to there; writing those first
    /// values as indices into a dictionary of themselves saves nothing either.
    static let cardinalityProbe = 4096

    init(
        column: ParquetColumn, writesUUIDText: Bool, options: ParquetWriter.Options, chunk: ParquetChunkBuffer,
        pages: ParquetPageQueue
    ) {
        self.pages = pages
        self.column = column
        self.writesUUIDText = writesUUIDText
        physical = column.type.physical
        isOptional = column.isOptional
        pageBytes = options.pageBytes
        dictionaryBytes = options.dictionaryBytes
        self.chunk = chunk
        dictionaryEncodes = options.usesDictionary && physical != .boolean
        dictionary = ParquetDictionary(isLengthPrefixed: physical == .byteArray, plainLimit: options.dictionaryBytes)
        usesDictionary = dictionaryEncodes
        statistics = ParquetStatistics(order: column.type.order)
        probeRemaining = dictionaryEncodes ? Self.cardinalityProbe : 0
        // Room for a whole page up front: growing by doubling past the page size would keep twice the memory.
        plain = ParquetBuffer(capacity: pageBytes + 64 * 1024)
        indices = ParquetBuffer(capacity: min(pageBytes / 4, Self.maxPageValues) + 1)
        levels = ParquetBuffer(capacity: isOptional ? Self.maxPageValues + 1 : 16)
    }

    /// Releases the page buffers; the writer must not be used after.
    func deallocate() {
        levels.deallocate()
        indices.deallocate()
        plain.deallocate()
    }

    /// The current chunk's encoded size before compression, with an estimate of the open page. It counts the pages
    /// as encoded, not as compressed, so that where row groups end does not hang on how far compression has come.
    var bufferedBytes: Int { chunkEncoded + openPageBytes }

    /// An estimate of the open page's size: its PLAIN values and its dictionary indices.
    var openPageBytes: Int { plain.count + indices.count }

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
            if value != 0 { plain.setBits(ofLastByte: 1 << UInt8(booleanBits & 7)) }
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
            if probeRemaining > 0 { appendPlain(bytes: value) }
            // Only a new entry can move the minimum or maximum.
            if try appendIndex(of: value) { statistics.add(bytes: value) }
            return
        }
        statistics.add(bytes: value)
        appendPlain(bytes: value)
        try endValue()
    }

    /// Adds a byte array's or fixed-length value's PLAIN encoding to the page.
    @inline(__always)
    private mutating func appendPlain(bytes value: UnsafeRawBufferPointer) {
        if physical == .byteArray { plain.append(littleEndian: UInt32(truncatingIfNeeded: value.count)) }
        plain.append(contentsOf: value)
    }

    /// Adds a fixed-width value's little-endian bytes to the page.
    @inline(__always)
    private mutating func appendFixed(_ value: UnsafeRawBufferPointer) throws {
        if usesDictionary {
            if probeRemaining > 0 { plain.append(contentsOf: value) }
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
        if probeRemaining > 0 {
            probeRemaining -= 1
            if probeRemaining == 0 { decideOnDictionary() }
        }
        if !usesDictionary {
            try endValue(counted: true)
        } else if dictionary.plainCount > dictionaryBytes {
            try fallBackToPlain()
        } else if indices.count * 4 >= pageBytes || pageValues >= Self.maxPageValues {
            try writePage()
        }
        return isNew
    }

    @inline(__always)
    private mutating func endValue(counted: Bool = false) throws {
        if !counted { pageValues += 1 }
        if plain.count >= pageBytes || indices.count * 4 >= pageBytes || pageValues >= Self.maxPageValues {
            try writePage()
        }
    }

    /// Ends the chunk's probe (see ``cardinalityProbe``): keeps the page's PLAIN values and drops the dictionary when
    /// nine in ten values were distinct, or else keeps the indices.
    private mutating func decideOnDictionary() {
        if dictionary.count * 10 >= Self.cardinalityProbe * 9 {
            usesDictionary = false
            indices.removeAll()
            dictionary.reset()
        } else {
            plain.removeAll()
        }
    }

    /// Ends the dictionary-encoded page and writes PLAIN pages for the rest of the chunk.
    private mutating func fallBackToPlain() throws {
        if pageValues > 0 { try writePage() }
        usesDictionary = false
        probeRemaining = 0
    }
}
