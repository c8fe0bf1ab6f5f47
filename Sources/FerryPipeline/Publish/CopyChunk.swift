/// The rows of one chunk in COPY's text format (tab-separated, `\N` for NULL, backslash escapes, one line per row),
/// with where each line ends, so that a chunk PostgreSQL refused can be sent again row by row. The buffer is reused
/// from chunk to chunk: memory follows the chunk size, not the table.
struct CopyChunk {
    /// The COPY text.
    private(set) var bytes: [UInt8] = []
    /// The end offset of each row's line (after its newline).
    private(set) var lineEnds: [Int] = []
    /// The row number (from 1, in the publish's order) of the chunk's first row.
    var firstRow = 1

    /// How many rows the chunk holds.
    var count: Int { lineEnds.count }

    /// Empties the chunk, keeping its capacity; the next row is row `first`.
    mutating func reset(firstRow first: Int) {
        bytes.removeAll(keepingCapacity: true)
        lineEnds.removeAll(keepingCapacity: true)
        firstRow = first
    }

    /// Appends one byte.
    @inline(__always) mutating func append(_ byte: UInt8) { bytes.append(byte) }

    /// Appends bytes as they are.
    @inline(__always) mutating func append(raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    /// Appends `text` escaped for COPY's text format: backslash, tab, newline and carriage return get a backslash;
    /// a NUL byte is written `\000`, which PostgreSQL refuses (text cannot hold it), so that record is rejected.
    @inline(__always) mutating func append(escaping text: UnsafeRawBufferPointer) {
        // Most values hold no byte to escape: one copy then.
        if !text.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x00 }) {
            bytes.append(contentsOf: text)
            return
        }
        for byte in text {
            switch byte {
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x09: bytes.append(0x5C); bytes.append(0x74)
            case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
            case 0x0D: bytes.append(0x5C); bytes.append(0x72)
            case 0x00: bytes.append(contentsOf: [0x5C, 0x30, 0x30, 0x30])
            default: bytes.append(byte)
            }
        }
    }

    /// Appends `data` as a `bytea` in hex, escaped for COPY: `\\x0a1b…`.
    @inline(__always) mutating func append(hex data: UnsafeRawBufferPointer) {
        bytes.append(0x5C)
        bytes.append(0x5C)
        bytes.append(0x78)
        for byte in data {
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }

    /// Ends the current row's line.
    mutating func endRow() {
        bytes.append(0x0A)
        lineEnds.append(bytes.count)
    }

    /// The line of row `index` (0-based in the chunk), newline included.
    func line(_ index: Int) -> ArraySlice<UInt8> {
        bytes[(index == 0 ? 0 : lineEnds[index - 1])..<lineEnds[index]]
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
