import FerryTestSupport
import Foundation
import Testing

/// `--zstd-level` on `ferry export` and `ferry snapshot`: it reaches the Parquet writer, and levels Zstandard does
/// not have are refused as usage errors.
struct ParquetZstdLevelCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    /// A store of `rows` products imported from a generated CSV by the built `ferry import`.
    func withProductStore(rows: Int, _ body: (URL, String) throws -> Void) throws {
        try TestSupport.withTemporaryFolder { folder in
            let words = [
                "maple", "towel", "router", "golden", "shelf", "wrench", "lantern", "scarf", "bamboo", "glove",
                "frame", "fork", "solid", "soap", "cover", "belt", "chair", "hose", "charger", "jacket", "mirror",
            ]
            var state: UInt64 = 7
            func next() -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int(state >> 33)
            }
            var csv = "sku,name,quantity,description\n"
            for row in 0..<rows {
                let description = (0..<(4 + next() % 12)).map { _ in words[next() % words.count] }
                    .joined(separator: " ")
                csv += "SKU-\(row * 7919 % 1_000_003),item \(next() % 311),\(next() % 97),\(description)\n"
            }
            let source = folder.appendingPathComponent("products.csv")
            try csv.write(to: source, atomically: true, encoding: .utf8)
            let store = folder.appendingPathComponent("store.sqlite").path
            let imported = try ferry.run([
                "import", "--quiet", "--entity", "products", "--key", "sku", "--store", store, source.path,
            ])
            #expect(imported.status == 0, "\(imported.standardError)")
            try body(folder, store)
        }
    }

    @Test("ferry export --zstd-level 1 and 19 write files of different sizes that pyarrow reads alike")
    func exportLevelsReachTheWriter() throws {
        try withProductStore(rows: 20_000) { folder, store in
            var sizes: [Int] = []
            var columns: [[String?]] = []
            for level in ["1", "19"] {
                let output = folder.appendingPathComponent("level-\(level).parquet").path
                let result = try ferry.run([
                    "export", "--quiet", "--store", store, "--entity", "products", "--sort", "sku",
                    "--zstd-level", level, "--output", output,
                ])
                #expect(result.status == 0, "\(result.standardError)")
                sizes.append(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0)
                let reading = try ParquetReaders.read(output).pyarrow
                #expect(reading.rows == 20_000)
                #expect(reading.chunk(group: 0, column: 0)["compression"] as? String == "ZSTD")
                columns.append(reading.column("description"))
            }
            #expect(sizes[1] < sizes[0], "level 1: \(sizes[0]) bytes, level 19: \(sizes[1]) bytes")
            #expect(columns[0] == columns[1])
            #expect(columns[0].count == 20_000)
        }
    }

    @Test("A Zstandard level outside 1...22 is a usage error for export and snapshot, and writes nothing")
    func levelOutOfRange() throws {
        try withProductStore(rows: 10) { folder, store in
            let output = folder.appendingPathComponent("refused.parquet").path
            let export = try ferry.run([
                "export", "--store", store, "--entity", "products", "--zstd-level", "0", "--output", output,
            ])
            #expect(export.status == 64)
            #expect(export.standardError.contains("--zstd-level must be 1 (fastest) to 22 (smallest); found 0."))
            #expect(!FileManager.default.fileExists(atPath: output))
            let lake = folder.appendingPathComponent("lake").path
            let snapshot = try ferry.run([
                "snapshot", "--store", store, "--output", lake, "--format", "parquet", "--zstd-level", "23",
            ])
            #expect(snapshot.status == 64)
            #expect(snapshot.standardError.contains("--zstd-level must be 1 (fastest) to 22 (smallest); found 23."))
            #expect(!FileManager.default.fileExists(atPath: lake))
        }
    }

    @Test("ferry snapshot --zstd-level 19 writes a smaller Parquet dataset than level 1")
    func snapshotLevel() throws {
        try withProductStore(rows: 20_000) { folder, store in
            var sizes: [Int] = []
            for level in ["1", "19"] {
                let lake = folder.appendingPathComponent("lake-\(level)").path
                let result = try ferry.run([
                    "snapshot", "--quiet", "--store", store, "--output", lake, "--format", "parquet",
                    "--zstd-level", level,
                ])
                #expect(result.status == 0, "\(result.standardError)")
                let file = lake + "/products/part-00000.parquet"
                #expect(try ParquetReaders.read(file).pyarrow.rows == 20_000)
                sizes.append(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0)
            }
            #expect(sizes[1] < sizes[0], "level 1: \(sizes[0]) bytes, level 19: \(sizes[1]) bytes")
        }
    }
}
