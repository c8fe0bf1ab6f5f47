#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

extension CSVWriter {
    /// Copies the `count` bytes at `source` to `target` as one CSV field and returns the bytes written: as they are
    /// when none of them is the delimiter, the quote, CR or LF, else between quotes with each quote doubled.
    /// `target` has room for `2 + 2 × count` bytes.
    @inline(__always)
    static func copyField(
        _ source: UnsafeRawPointer, count: Int, to target: UnsafeMutableRawPointer, delimiter: UInt8, quote: UInt8
    ) -> Int {
        guard let first = firstSpecialByte(source, count: count, delimiter: delimiter, quote: quote) else {
            target.copyMemory(from: source, byteCount: count)
            return count
        }
        target.storeBytes(of: quote, as: UInt8.self)
        var written = 1
        var runStart = 0
        var searchFrom = first
        // Each quote is copied with the run before it, then written once more.
        while searchFrom < count, let found = memchr(source + searchFrom, Int32(quote), count - searchFrom) {
            let end = UnsafeRawPointer(found) - source + 1
            (target + written).copyMemory(from: source + runStart, byteCount: end - runStart)
            written += end - runStart
            (target + written).storeBytes(of: quote, as: UInt8.self)
            written += 1
            runStart = end
            searchFrom = end
        }
        (target + written).copyMemory(from: source + runStart, byteCount: count - runStart)
        written += count - runStart
        (target + written).storeBytes(of: quote, as: UInt8.self)
        return written + 1
    }

    /// The offset of the first byte among the `count` at `source` that makes a field need quotes (the delimiter,
    /// the quote, CR or LF), or `nil`; eight bytes are looked at a time.
    @inline(__always)
    static func firstSpecialByte(_ source: UnsafeRawPointer, count: Int, delimiter: UInt8, quote: UInt8) -> Int? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let delimiters = ones &* UInt64(delimiter)
        let quotes = ones &* UInt64(quote)
        let lineFeeds = ones &* 0x0A
        let carriageReturns = ones &* 0x0D
        var offset = 0
        while count - offset >= 8 {
            let word = (source + offset).loadUnaligned(as: UInt64.self)
            let found =
                zeroBytes(word ^ delimiters) | zeroBytes(word ^ quotes) | zeroBytes(word ^ lineFeeds)
                | zeroBytes(word ^ carriageReturns)
            // The lowest flagged byte is exact (a false flag can only sit above a true one), and bytes are loaded
            // little-endian first.
            if found != 0 { return offset + found.littleEndian.trailingZeroBitCount >> 3 }
            offset += 8
        }
        while offset < count {
            let byte = source.load(fromByteOffset: offset, as: UInt8.self)
            if byte == delimiter || byte == quote || byte == 0x0A || byte == 0x0D { return offset }
            offset += 1
        }
        return nil
    }

    /// The high bit of each byte of `word` that is zero (and possibly of bytes above one that is).
    @inline(__always)
    private static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
    }
}
