import FerryTestSupport
import Foundation
import Testing

/// `--compression`, `--zstd-level`, `--row-group-rows` and `--row-group-mib` given to a command that writes no
/// Parquet: a usage error that writes nothing, not an option silently ignored.
struct ParquetOptionsOutsideParquetCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test(
        "A Parquet option on a CSV export or a SQLite snapshot is a usage error that writes nothing",
        arguments: [
            "--compression=snappy", "--zstd-level=3", "--row-group-rows=10", "--row-group-mib=4", "--uuids-as-text",
        ])
    func refused(argument: String) throws {
        let option = String(argument.prefix { $0 != "=" })
        try ProductStoreFixture.withStore(rows: 10) { folder, store in
            let output = folder.appendingPathComponent("refused.csv").path
            let export = try ferry.run([
                "export", "--store", store, "--entity", "products", argument, "--output", output,
            ])
            #expect(export.status == 64)
            #expect(
                export.standardError.contains(
                    "\(option) lays out Parquet files only; give --format parquet or an --output ending in .parquet."),
                "\(export.standardError)")
            #expect(!FileManager.default.fileExists(atPath: output))
            let copy = folder.appendingPathComponent("copy").path
            let snapshot = try ferry.run(["snapshot", "--store", store, "--output", copy, argument])
            #expect(snapshot.status == 64)
            #expect(
                snapshot.standardError.contains("\(option) lays out Parquet files only; give --format parquet."),
                "\(snapshot.standardError)")
            #expect(!FileManager.default.fileExists(atPath: copy))
        }
    }

    @Test("--uuids-as-text writes a UUID attribute as a string column of its text, which DuckDB reads as VARCHAR")
    func uuidsAsText() throws {
        try TestSupport.withTemporaryFolder { folder in
            let model = folder.appendingPathComponent("model.yml")
            let yaml = """
                entities:
                  Item:
                    attributes: { sku: string, token: uuid }
                    uniquenessConstraints: [[sku]]
                """
            try yaml.write(to: model, atomically: true, encoding: .utf8)
            let source = folder.appendingPathComponent("items.csv")
            try "sku,token\nA,E621E1F8-C36C-495A-93FC-0C247A3E6E5F\nB,\n".write(
                to: source, atomically: true, encoding: .utf8)
            let store = folder.appendingPathComponent("items.sqlite").path
            let imported = try ferry.run([
                "import", "--quiet", source.path, "--store", store, "--model", model.path, "--entity", "Item", "--key",
                "sku",
            ])
            #expect(imported.status == 0, "\(imported.standardError)")
            for asText in [true, false] {
                let output = folder.appendingPathComponent(asText ? "text.parquet" : "uuid.parquet").path
                let export = try ferry.run(
                    ["export", "--quiet", "--store", store, "--entity", "Item", "--output", output]
                        + (asText ? ["--uuids-as-text"] : []))
                #expect(export.status == 0, "\(export.standardError)")
                let readings = try ParquetReaders.read(output)
                #expect(readings.duckdb.column("token") == ["e621e1f8-c36c-495a-93fc-0c247a3e6e5f", nil])
                #expect(readings.duckdb.types["token"] == (asText ? "VARCHAR" : "UUID"))
            }
        }
    }

    @Test("A Parquet option on an export made Parquet by --format rather than by its extension is taken")
    func parquetByFormat() throws {
        try ProductStoreFixture.withStore(rows: 10) { folder, store in
            let output = folder.appendingPathComponent("products.data").path
            let export = try ferry.run([
                "export", "--quiet", "--store", store, "--entity", "products", "--format", "parquet",
                "--compression", "snappy", "--output", output,
            ])
            #expect(export.status == 0, "\(export.standardError)")
            let compression = try ParquetReaders.read(output).pyarrow.chunk(group: 0, column: 0)["compression"]
            #expect(compression as? String == "SNAPPY")
        }
    }
}
