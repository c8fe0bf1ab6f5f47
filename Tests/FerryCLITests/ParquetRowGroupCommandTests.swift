import FerryTestSupport
import Foundation
import Testing

/// `--row-group-rows` and `--row-group-mib` on `ferry export` and `ferry snapshot`: they bound the Parquet file's row
/// groups as pyarrow sees them, and sizes with no room for a row are refused as usage errors.
struct ParquetRowGroupCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    /// The rows of each row group of `path`, as pyarrow reads its footer.
    func rowGroupRows(_ path: String) throws -> [Int] {
        try ParquetReaders.read(path).pyarrow.rowGroups.map { $0["rows"] as? Int ?? -1 }
    }

    @Test("ferry export --row-group-rows 1000 writes 2500 rows as row groups of 1000, 1000 and 500")
    func exportRows() throws {
        try ProductStoreFixture.withStore(rows: 2500) { folder, store in
            let output = folder.appendingPathComponent("products.parquet").path
            let result = try ferry.run([
                "export", "--quiet", "--store", store, "--entity", "products", "--sort", "sku",
                "--row-group-rows", "1000", "--output", output,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try rowGroupRows(output) == [1000, 1000, 500])
            let readings = try ParquetReaders.read(output)
            #expect(readings.duckdb.rows == 2500)
            #expect(readings.duckdb.column("sku") == readings.pyarrow.column("sku"))
        }
    }

    @Test("ferry export --row-group-mib 1 splits 30,000 rows into groups of whole 1024-row runs, the default keeps one")
    func exportMebibytes() throws {
        try ProductStoreFixture.withStore(rows: 30_000) { folder, store in
            let bounded = folder.appendingPathComponent("bounded.parquet").path
            let whole = folder.appendingPathComponent("whole.parquet").path
            for (output, extra) in [(bounded, ["--row-group-mib", "1"]), (whole, [])] {
                let result = try ferry.run(
                    ["export", "--quiet", "--store", store, "--entity", "products", "--output", output] + extra)
                #expect(result.status == 0, "\(result.standardError)")
            }
            #expect(try rowGroupRows(whole) == [30_000])
            let groups = try rowGroupRows(bounded)
            #expect(groups.count >= 2, "row groups \(groups)")
            #expect(groups.reduce(0, +) == 30_000)
            #expect(groups.dropLast().allSatisfy { $0 > 0 && $0 % 1024 == 0 }, "row groups \(groups)")
            #expect(try ParquetReaders.read(bounded).pyarrow.column("description")
                == ParquetReaders.read(whole).pyarrow.column("description"))
        }
    }

    @Test("ferry snapshot --format parquet --row-group-rows 1000 bounds each entity's row groups")
    func snapshotRows() throws {
        try ProductStoreFixture.withStore(rows: 2500) { folder, store in
            let lake = folder.appendingPathComponent("lake").path
            let result = try ferry.run([
                "snapshot", "--quiet", "--store", store, "--output", lake, "--format", "parquet",
                "--row-group-rows", "1000",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try rowGroupRows(lake + "/products/part-00000.parquet") == [1000, 1000, 500])
        }
    }

    @Test("A pipeline's export and Parquet snapshot steps take rowGroupRows, and the snapshot step compression")
    func pipelineSteps() throws {
        try ProductStoreFixture.withStore(rows: 2500) { folder, store in
            let pipeline = folder.appendingPathComponent("nightly.yml")
            try """
            store: \(store)
            steps:
              - export: { entity: products, sort: sku, to: out/products.parquet, rowGroupRows: 1000 }
              - snapshot: { to: out/lake, format: parquet, rowGroupRows: 1000, compression: snappy }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
            let result = try ferry.run(["run", "--quiet", pipeline.path])
            #expect(result.status == 0, "\(result.standardError)")
            let out = folder.appendingPathComponent("out").path
            #expect(try rowGroupRows(out + "/products.parquet") == [1000, 1000, 500])
            let part = out + "/lake/products/part-00000.parquet"
            #expect(try rowGroupRows(part) == [1000, 1000, 500])
            let compression = try ParquetReaders.read(part).pyarrow.chunk(group: 0, column: 0)["compression"]
            #expect(compression as? String == "SNAPPY")
        }
    }

    @Test(
        "A row group size below 1 is a usage error for export and snapshot, and writes nothing",
        arguments: [("--row-group-rows", "0"), ("--row-group-mib", "0"), ("--row-group-rows", "-5")])
    func sizeOutOfRange(option: String, value: String) throws {
        try ProductStoreFixture.withStore(rows: 10) { folder, store in
            let message = "\(option) must be at least 1; found \(value)."
            let output = folder.appendingPathComponent("refused.parquet").path
            let export = try ferry.run([
                "export", "--store", store, "--entity", "products", "\(option)=\(value)", "--output", output,
            ])
            #expect(export.status == 64)
            #expect(export.standardError.contains(message), "\(export.standardError)")
            #expect(!FileManager.default.fileExists(atPath: output))
            let lake = folder.appendingPathComponent("lake").path
            let snapshot = try ferry.run([
                "snapshot", "--store", store, "--output", lake, "--format", "parquet", "\(option)=\(value)",
            ])
            #expect(snapshot.status == 64)
            #expect(snapshot.standardError.contains(message), "\(snapshot.standardError)")
            #expect(!FileManager.default.fileExists(atPath: lake))
        }
    }

    /// Row groups are written out in the background while the next is encoded: a write that fails there fails the
    /// export all the same. RLIMIT_FSIZE stands in for a full disk, reached after a few of the 25 row groups.
    @Test("A disk that fills while a row group is written out in the background fails with 74 and leaves no file")
    func diskFullInARowGroup() throws {
        try ProductStoreFixture.withStore(rows: 2500) { folder, store in
            let export = [
                "export", "--quiet", "--store", store, "--entity", "products", "--row-group-rows", "100",
                "--compression", "uncompressed", "--output", "products.parquet",
            ]
            let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            let result = try ferry.runWithFileSizeLimit(kibibytes: 64, export, in: folder)
            #expect(result.status == 74, "\(result.standardError)")
            #expect(result.standardError.contains("products.parquet"), "\(result.standardError)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
            // Without the limit the file is several times larger than it: the limit is reached mid-file.
            let whole = try ferry.run(export, in: folder)
            #expect(whole.status == 0, "\(whole.standardError)")
            let written = folder.appendingPathComponent("products.parquet").path
            let size = try FileManager.default.attributesOfItem(atPath: written)[.size] as? Int ?? 0
            #expect(size > 3 * 64 * 1024, "\(size) bytes")
        }
    }
}
