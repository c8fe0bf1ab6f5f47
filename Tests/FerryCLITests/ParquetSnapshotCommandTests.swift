import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// `ferry snapshot --format parquet`: the whole store as a Parquet dataset, one sub-folder per entity.
struct ParquetSnapshotCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test("A Parquet snapshot has a folder per entity that DuckDB reads with the store's rows, a manifest and _SUCCESS")
    func snapshotPerEntity() throws {
        try ParquetPartitionCommandTests.withDemoStore { folder, store in
            let output = folder.appendingPathComponent("lake").path
            let result = try ferry.run(["snapshot", "--store", store, "--output", output, "--format", "parquet"])
            #expect(result.status == 0, "\(result.standardError)")
            let files = ParquetPartitionCommandTests.files(under: output)
            #expect(
                files == [
                    "Category/part-00000.parquet", "Order/part-00000.parquet", "OrderItem/part-00000.parquet",
                    "Product/part-00000.parquet", "_SUCCESS", "manifest.json",
                ], "\(files)")
            let manifest =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: output + "/manifest.json"))) as? [String: Any] ?? [:]
            let listed = manifest["files"] as? [[String: Any]] ?? []
            for entity in ["Category", "Product", "Order", "OrderItem"] {
                let count = try PipelineCommandTests.rows(URL(fileURLWithPath: store), "SELECT count(*) FROM \"\(entity)\"")
                let reading = try ParquetReaders.read(output + "/\(entity)/part-00000.parquet")
                #expect([[SQLiteValue.integer(Int64(reading.duckdb.rows))]] == count, "\(entity)")
                #expect(reading.pyarrow.rows == reading.duckdb.rows, "\(entity)")
                let entry = listed.first { $0["entity"] as? String == entity }
                #expect(entry?["rows"] as? Int == reading.duckdb.rows, "\(entity)")
                #expect((entry?["sha256"] as? String)?.count == 64, "\(entity)")
            }
            let products = try ParquetReaders.read(output + "/Product/part-00000.parquet").duckdb
            #expect(products.types["created_at"] == "TIMESTAMP WITH TIME ZONE")
            #expect(products.types["photo"] == "BLOB")

            let again = try ferry.run(["snapshot", "--store", store, "--output", output, "--format", "parquet"])
            #expect(again.status == 74, "\(again.standardError)")
            #expect(again.standardError.contains("already exists"))
            #expect(ParquetPartitionCommandTests.files(under: output) == files)
        }
    }

    @Test("The demo pipeline's Parquet snapshot step writes the store's entities, and a rerun replaces it whole")
    func demoPipelineSnapshot() throws {
        try ParquetPartitionCommandTests.withDemoStore { folder, store in
            let lake = folder.appendingPathComponent("out/demo/lake").path
            let first = ParquetPartitionCommandTests.files(under: lake)
            #expect(first.contains("Product/part-00000.parquet") && first.contains("_SUCCESS"), "\(first)")
            let products = try ParquetReaders.read(lake + "/Product/part-00000.parquet").duckdb
            let count = try PipelineCommandTests.rows(URL(fileURLWithPath: store), "SELECT count(*) FROM Product")
            #expect([[SQLiteValue.integer(Int64(products.rows))]] == count)
            let again = try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder)
            #expect(again.status == 0, "\(again.standardError)")
            #expect(ParquetPartitionCommandTests.files(under: lake) == first)
        }
    }
}
