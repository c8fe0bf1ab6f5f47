import FerryStore
import Testing

/// The order an importer's chunk is written in: by key, as SQLite's BINARY collation orders keys.
struct PackedRowsOrderTests {
    private static func rows(_ keys: [[UInt8]?]) -> PackedRows {
        var rows = PackedRows(columns: ["sku", "n"])
        for (index, key) in keys.enumerated() {
            if let key { key.withUnsafeBytes { rows.appendText($0) } } else { rows.appendNull() }
            rows.appendInteger(Int64(index))
            rows.endRow()
        }
        return rows
    }

    /// The order by bytes, shorter first on a common start, ties by position (NULL before any text).
    private static func expectedOrder(_ keys: [[UInt8]?]) -> [Int] {
        keys.indices.sorted { left, right in
            switch (keys[left], keys[right]) {
            case (nil, nil): return left < right
            case (nil, _): return true
            case (_, nil): return false
            case (let a?, let b?): return a.lexicographicallyPrecedes(b) || (a == b && left < right)
            }
        }
    }

    @Test func textKeysSortByTheirBytesWhateverTheirLengthOrSharedStart() {
        var generator = SystemRandomNumberGenerator()
        // Keys sharing long starts (beyond the eight bytes compared first), of every length from empty, with
        // repeats and zero bytes.
        let alphabet: [UInt8] = [0, 0x41, 0x42, 0xC3, 0xFF]
        let keys: [[UInt8]?] = (0..<2_000).map { _ in
            let start = Array("SKU-0000".utf8).prefix(Int.random(in: 0...8, using: &generator))
            let tail = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            return Array(start) + tail
        }

        #expect(Self.rows(keys).orderByKey([0]) == Self.expectedOrder(keys))
    }

    @Test func aNullKeyComesFirstAndTheOtherRowsStillSortByBytes() {
        let keys: [[UInt8]?] = [Array("b".utf8), nil, Array("a".utf8), Array("ab".utf8), nil, Array("a".utf8)]

        #expect(Self.rows(keys).orderByKey([0]) == [1, 4, 2, 5, 3, 0])
    }
}
