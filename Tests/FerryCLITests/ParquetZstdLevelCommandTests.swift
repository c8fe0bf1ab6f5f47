import FerryTestSupport
import Foundation
import Testing

/// `--zstd-level` on `ferry export` and `ferry snapshot`: it reaches the Parquet writer, and levels Zstandard does
/// not have are refused as usage errors.
struct ParquetZstdLevelCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test("ferry export --zstd-level 1 and 19 write files of different sizes that pyarrow reads alike")
    func exportLevelsReachTheWriter() throws {
        try ProductStoreFixture.withStore(rows: 20_000) { folder, store in
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
        try ProductStoreFixture.withStore(rows: 10) { folder, store in
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
        try ProductStoreFixture.withStore(rows: 20_000) { folder, store in
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
