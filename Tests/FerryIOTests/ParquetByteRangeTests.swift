import Testing

@testable import FerryIO

/// `ParquetStatistics` on byte values: the minimum and maximum are those of a plain byte-by-byte comparison, whether
/// values differ in their first eight bytes, share them, are shorter than eight bytes or hold zero bytes.
struct ParquetByteRangeTests {
    /// Byte values from a fixed pseudo-random sequence, over a small alphabet with 0x00 and 0xFF in it, of lengths
    /// 0 to 19, many sharing long prefixes.
    static func values(_ count: Int, seed: UInt64) -> [[UInt8]] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let alphabet: [UInt8] = [0x00, 0x01, 0x41, 0x42, 0x7F, 0x80, 0xFF]
        return (0..<count).map { _ in
            let length = Int(next() % 20)
            let shared = Int(next() % 12)
            return (0..<length).map { position in
                position < shared ? 0x41 : alphabet[Int(next() % UInt64(alphabet.count))]
            }
        }
    }

    @Test("The byte range is a plain byte comparison's minimum and maximum", arguments: [1, 2, 3, 4, 5])
    func rangeMatchesPlainComparison(seed: UInt64) throws {
        let values = Self.values(5000, seed: seed)
        var statistics = ParquetStatistics(order: .unsignedBytes)
        for value in values { value.withUnsafeBytes { statistics.add(bytes: $0) } }
        let range = try #require(statistics.encodedRange(.byteArray))
        let smallest = try #require(values.min { $0.lexicographicallyPrecedes($1) })
        let largest = try #require(values.max { $0.lexicographicallyPrecedes($1) })
        #expect(range.min == smallest)
        #expect(range.max == largest)
    }

    @Test("A value that only adds a zero byte to the minimum is above it, and the empty value is below everything")
    func zeroBytesAndEmptyValues() throws {
        var statistics = ParquetStatistics(order: .unsignedBytes)
        for value: [UInt8] in [[0x41], [0x41, 0x00], [0x41, 0x00, 0x00], [0x40, 0xFF]] {
            value.withUnsafeBytes { statistics.add(bytes: $0) }
        }
        var range = try #require(statistics.encodedRange(.byteArray))
        #expect(range.min == [0x40, 0xFF])
        #expect(range.max == [0x41, 0x00, 0x00])
        [UInt8]().withUnsafeBytes { statistics.add(bytes: $0) }
        range = try #require(statistics.encodedRange(.byteArray))
        #expect(range.min == [])
    }
}
