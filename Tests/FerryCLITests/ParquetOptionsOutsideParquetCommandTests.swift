import FerryTestSupport
import Foundation
import Testing

/// `--compression`, `--zstd-level`, `--row-group-rows`, `--row-group-mib` and `--uuids-as-text` given to a command that
/// writes no Parquet: a usage error that writes nothing, not an option silently ignored; on an export that writes
/// Parquet because of `--format` rather than its extension, they are taken.
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
