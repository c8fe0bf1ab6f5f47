import FerryTestSupport
import Foundation
import Testing

/// pandas and Polars read what `ferry export` writes, as their users read it: every type, with Parquet's UUID type
/// and with `--uuids-as-text`, and a hive-partitioned dataset with a null partition. Polars' Parquet reader is its
/// own (in Rust); pandas reads through pyarrow but converts to its own types.
struct ParquetDataFrameReadTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test func pandasAndPolarsReadEveryTypeAndAPartitionedDataset() throws {
        try TestSupport.withTemporaryFolder { folder in
            let things = try EveryTypeStore(in: folder, ferry: ferry)
            let file = folder.appendingPathComponent("things.parquet").path
            let textFile = folder.appendingPathComponent("things-text.parquet").path
            let dataset = folder.appendingPathComponent("by-flag").path
            try things.run(["export", "--entity", "Thing", "--output", file])
            try things.run(["export", "--entity", "Thing", "--output", textFile, "--uuids-as-text"])
            try things.run([
                "export", "--entity", "Thing", "--output", dataset, "--format", "parquet", "--partition-by", "flag",
            ])

            let (pandas, polars) = try ParquetReaders.readAsDataFrames([file, textFile, dataset])
            let pandasTypes = [
                "key": "string", "text": "string", "small": "Int16", "medium": "Int32", "large": "Int64",
                "real": "Float64", "single": "Float32", "flag": "boolean", "at": "datetime64[us, UTC]", "id": "object",
                "bytes": "object", "amount": "object", "loose": "string", "link": "string",
            ]
            var polarsTypes = [
                "key": "String", "text": "String", "small": "Int16", "medium": "Int32", "large": "Int64",
                "real": "Float64", "single": "Float32", "flag": "Boolean",
                "at": "Datetime(time_unit='us', time_zone='UTC')", "id": "Binary", "bytes": "Binary",
                "amount": "Decimal(precision=10, scale=2)", "loose": "String", "link": "String",
            ]
            #expect(pandas[0].types == pandasTypes)
            var pandasTextTypes = pandasTypes
            pandasTextTypes["id"] = "string"
            #expect(pandas[1].types == pandasTextTypes)
            #expect(polars[0].types == polarsTypes)
            polarsTypes["id"] = "String"
            #expect(polars[1].types == polarsTypes)

            // Value by value as pyarrow reads the same files (which other tests compare with the store). pandas
            // gives UUIDs as uuid.UUID objects, printed as their text; Polars reads the UUID type as its 16 bytes.
            let pyarrow = try ParquetReaders.read(file).pyarrow
            for name in EveryTypeStore.attributes {
                let expected = pyarrow.column(name)
                #expect(expected.count == 4, "\(name)")
                #expect(pandas[0].column(name) == expected, "pandas \(name)")
                #expect(pandas[1].column(name) == expected, "pandas, UUIDs as text: \(name)")
                #expect(polars[1].column(name) == expected, "Polars, UUIDs as text: \(name)")
                let bytes = name == "id" ? expected.map { $0?.replacingOccurrences(of: "-", with: "") } : expected
                #expect(polars[0].column(name) == bytes, "Polars \(name)")
            }
            #expect(pandas[0].column("at") == EveryTypeStore.microseconds)
            #expect(polars[0].column("large") == ["-9223372036854775808", "9223372036854775807", nil, "0"])

            // The null partition reads as null; pandas has the partition values as strings, Polars as booleans.
            for (reader, reading) in [("pandas", pandas[2]), ("Polars", polars[2])] {
                let pairs = zip(reading.column("key"), zip(reading.column("flag"), reading.column("amount")))
                    .map { "\($0 ?? "nil") \($1.0 ?? "nil") \($1.1 ?? "nil")" }
                #expect(
                    pairs.sorted() == ["a true 12345678.90", "b false -99999999.99", "c nil nil", "日本 true 0.01"],
                    "\(reader)")
            }
            #expect(pandas[2].types["flag"] == "string")
            #expect(polars[2].types["flag"] == "Boolean")
        }
    }
}
