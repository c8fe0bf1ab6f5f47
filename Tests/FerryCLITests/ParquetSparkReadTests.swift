import FerryTestSupport
import Foundation
import Testing

/// Apache Spark, whose Parquet reader (parquet-java, on the JVM) shares no code with Ferry, pyarrow or DuckDB, reads
/// what `ferry export` and `ferry snapshot` write: every type (UUIDs as text, since Spark refuses Parquet's UUID
/// type), a hive-partitioned dataset and a Parquet snapshot's entity folder, all in one Spark session.
struct ParquetSparkReadTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test func sparkReadsEveryTypeAPartitionedDatasetAndASnapshot() throws {
        try TestSupport.withTemporaryFolder { folder in
            let things = try EveryTypeStore(in: folder, ferry: ferry)
            let file = folder.appendingPathComponent("things.parquet").path
            let dataset = folder.appendingPathComponent("by-flag").path
            let snapshot = folder.appendingPathComponent("snapshot").path
            try things.run(["export", "--entity", "Thing", "--output", file, "--uuids-as-text"])
            try things.run([
                "export", "--entity", "Thing", "--output", dataset, "--format", "parquet", "--partition-by", "flag",
                "--uuids-as-text",
            ])
            try things.run(["snapshot", "--output", snapshot, "--format", "parquet", "--uuids-as-text"])

            let spark = try ParquetReaders.readWithSpark([file, dataset, snapshot + "/Thing"])
            let types = [
                "key": "string", "text": "string", "small": "smallint", "medium": "int", "large": "bigint",
                "real": "double", "single": "float", "flag": "boolean", "at": "timestamp", "id": "string",
                "bytes": "binary", "amount": "decimal(10,2)", "loose": "string", "link": "string",
            ]
            #expect(spark[0].types == types)
            #expect(spark[0].rows == 4)
            // Value by value as pyarrow reads the same file (which other tests compare with the store).
            let pyarrow = try ParquetReaders.read(file).pyarrow
            for name in types.keys.sorted() {
                #expect(!pyarrow.column(name).isEmpty, "\(name)")
                #expect(spark[0].column(name) == pyarrow.column(name), "\(name)")
            }
            #expect(spark[0].column("at") == EveryTypeStore.microseconds)

            // The partition column comes from the folders' names, nulls from __HIVE_DEFAULT_PARTITION__.
            let partitioned = spark[1]
            let pairs = zip(partitioned.column("key"), zip(partitioned.column("flag"), partitioned.column("amount")))
                .map { "\($0 ?? "nil") \($1.0 ?? "nil") \($1.1 ?? "nil")" }
            #expect(pairs.sorted() == ["a true 12345678.90", "b false -99999999.99", "c nil nil", "日本 true 0.01"])

            #expect(spark[2].types == types)
            #expect(spark[2].column("key").compactMap { $0 }.sorted() == ["a", "b", "c", "日本"])
        }
    }
}
