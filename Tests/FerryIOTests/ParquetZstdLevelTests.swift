import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// `ParquetWriter.Options.zstdLevel` reaches the compressor, and levels outside Zstandard's range are refused.
@Suite("Parquet Zstandard levels")
struct ParquetZstdLevelTests {
    static let columns = [
        ParquetColumn(name: "sku", type: .string, isOptional: false),
        ParquetColumn(name: "description", type: .string),
        ParquetColumn(name: "quantity", type: .int64),
    ]

    /// Rows of text drawn from a small vocabulary by a fixed pseudo-random sequence, which the slower levels
    /// compress further.
    static func rows(_ count: Int) -> [[ParquetTestValue]] {
        let words = [
            "maple", "towel", "router", "golden", "shelf", "wrench", "lantern", "scarf", "bamboo", "glove", "frame",
            "fork", "solid", "soap", "cover", "belt", "chair", "hose", "charger", "jacket", "mirror", "holder",
        ]
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        return (0..<count).map { row in
            let description = (0..<(4 + next() % 12)).map { _ in words[next() % words.count] }.joined(separator: " ")
            return [.text("SKU-\(String(row * 7919 % 1_000_003))"), .text(description), .integer(Int64(next() % 977))]
        }
    }

    @Test("Files written at Zstandard levels 1 and 19 differ in size and read back alike")
    func levelsReachTheCompressor() throws {
        try TestSupport.withTemporaryFolder { folder in
            let rows = Self.rows(30_000)
            var sizes: [Int: Int] = [:]
            for level in [1, 19] {
                let path = folder.appendingPathComponent("level-\(level).parquet").path
                var options = ParquetWriter.Options()
                options.zstdLevel = level
                try ParquetWriter(path: path, columns: Self.columns, options: options).writeAll(rows)
                sizes[level] = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
                let expected: [[String?]] = rows.map { row in
                    row.map { value -> String? in
                        switch value {
                        case .text(let text): text
                        case .integer(let number): "\(number)"
                        default: nil
                        }
                    }
                }
                let readings = try expectBothReaders(
                    path, columns: ["sku", "description", "quantity"], expected: expected)
                #expect(readings.pyarrow.chunk(group: 0, column: 1)["compression"] as? String == "ZSTD")
            }
            let fast = try #require(sizes[1])
            let small = try #require(sizes[19])
            #expect(small < fast, "level 19: \(small) bytes, level 1: \(fast) bytes")
        }
    }

    @Test("A Zstandard level outside 1...22 is refused before any file is made", arguments: [0, -3, 23])
    func levelOutOfRange(level: Int) throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("refused.parquet").path
            var options = ParquetWriter.Options()
            options.zstdLevel = level
            do {
                _ = try ParquetWriter(path: path, columns: Self.columns, options: options)
                Issue.record("level \(level) was accepted")
            } catch let error as FerryIOError {
                #expect(error.code == .invalidValue)
                #expect(error.message == "zstd level \(level) is outside 1...22 (1 fastest, 22 smallest)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test("Snappy and uncompressed files ignore the Zstandard level")
    func otherCodecsIgnoreTheLevel() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("snappy.parquet").path
            var options = ParquetWriter.Options()
            options.compression = .snappy
            options.zstdLevel = 0
            try ParquetWriter(path: path, columns: Self.columns, options: options).writeAll(Self.rows(10))
            #expect(try ParquetReaders.read(path).pyarrow.rows == 10)
        }
    }
}
