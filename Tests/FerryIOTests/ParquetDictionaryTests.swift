import Testing

@testable import FerryIO

/// `ParquetDictionary`: one index per distinct value, in the order values first came, through the table's growth,
/// with the dictionary page's body as PLAIN encodes the entries.
struct ParquetDictionaryTests {
    /// Looks every value up and returns the indices and whether each was new.
    static func lookUp(_ values: [[UInt8]], in dictionary: inout ParquetDictionary) -> [(UInt32, Bool)] {
        values.map { value in value.withUnsafeBytes { dictionary.index(of: $0) } }
    }

    /// What a plain first-seen numbering gives for `values`.
    static func expectedIndices(_ values: [[UInt8]]) -> (indices: [(UInt32, Bool)], distinct: [[UInt8]]) {
        var seen: [[UInt8]: UInt32] = [:]
        var distinct: [[UInt8]] = []
        let indices = values.map { value -> (UInt32, Bool) in
            if let index = seen[value] { return (index, false) }
            let index = UInt32(distinct.count)
            seen[value] = index
            distinct.append(value)
            return (index, true)
        }
        return (indices, distinct)
    }

    static func bytes<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    @Test("8-byte numbers get one index each, in first-seen order, while the table grows many times")
    func eightByteNumbers() {
        // Values chosen to share low bits, so that probes collide.
        let values = (0..<60_000).map { Self.bytes(Int64(($0 * 7) % 20_011) << 20) }
        var dictionary = ParquetDictionary(isLengthPrefixed: false)
        let found = Self.lookUp(values, in: &dictionary)
        let (expected, distinct) = Self.expectedIndices(values)
        #expect(found.map(\.0) == expected.map(\.0))
        #expect(found.map(\.1) == expected.map(\.1))
        #expect(dictionary.count == 20_011)
        #expect(dictionary.withPlainBytes { Array($0) } == distinct.flatMap { $0 })
    }

    @Test("4-byte numbers, 16-byte values and byte arrays of every length keep their own indices")
    func otherWidths() {
        let fourByte = (0..<5000).map { Self.bytes(Int32($0 % 1234) - 600) }
        let sixteenByte = (0..<5000).map { Self.bytes(UInt64($0 % 777)) + Self.bytes(UInt64($0 % 3)) }
        let arrays = (0..<8000).map { row -> [UInt8] in
            // Lengths 0 through 40, and values that differ only past their first eight bytes.
            Array("prefix-\(row % 1500)-suffix".utf8.prefix(row % 41))
        }
        for (values, prefixed) in [(fourByte, false), (sixteenByte, false), (arrays, true)] {
            var dictionary = ParquetDictionary(isLengthPrefixed: prefixed)
            let found = Self.lookUp(values, in: &dictionary)
            let (expected, distinct) = Self.expectedIndices(values)
            #expect(found.map(\.0) == expected.map(\.0))
            #expect(dictionary.count == distinct.count)
            let plain = distinct.flatMap { prefixed ? Self.bytes(UInt32($0.count)) + $0 : $0 }
            #expect(dictionary.withPlainBytes { Array($0) } == plain)
        }
    }

    @Test("After a reset the dictionary numbers values from zero again")
    func resetStartsOver() {
        var dictionary = ParquetDictionary(isLengthPrefixed: true)
        let first = (0..<3000).map { Array("first \($0)".utf8) }
        _ = Self.lookUp(first, in: &dictionary)
        dictionary.reset()
        #expect(dictionary.count == 0 && dictionary.plainCount == 0)
        let second = (0..<10).map { Array("first \($0 * 2)".utf8) }
        let found = Self.lookUp(second + second, in: &dictionary)
        #expect(found.map(\.0) == (0..<10).map(UInt32.init) + (0..<10).map(UInt32.init))
        #expect(found.map(\.1) == Array(repeating: true, count: 10) + Array(repeating: false, count: 10))
    }

    @Test(
        "Past its page limit the table fills further before it grows and still finds every value",
        arguments: [700, 3000])
    func pastTheLimit(count: Int) {
        // The limit passes at 400 entries, before the table of 1024 slots is half full.
        var dictionary = ParquetDictionary(isLengthPrefixed: false, plainLimit: 8 * 400)
        let values = (0..<count).map { Self.bytes(Int64($0) << 32) }
        let found = Self.lookUp(values + values, in: &dictionary)
        #expect(found.map(\.0) == (0..<count).map(UInt32.init) + (0..<count).map(UInt32.init))
        #expect(found.map(\.1) == Array(repeating: true, count: count) + Array(repeating: false, count: count))
        #expect(dictionary.count == count)
    }
}
