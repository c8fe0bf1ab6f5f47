import FerryTestSupport
import Foundation
import Testing

/// Apache Spark, whose Parquet reader (parquet-java, on the JVM) shares no code with Ferry, pyarrow or DuckDB, reads
/// what `ferry export` and `ferry snapshot` write: every type (UUIDs as text, since Spark refuses Parquet's UUID
/// type), a hive-partitioned dataset and a Parquet snapshot's entity folder, all in one Spark session.
struct ParquetSparkReadTests {
    let ferry = BuiltCommand(product: "ferry")

    static let model = """
        entities:
          Thing:
            attributes:
              key: { type: string, optional: false }
              small: integer16
              medium: integer32
              large: integer64
              real: double
              single: float
              flag: boolean
              at: date
              id: uuid
              bytes: binary
              amount: { type: decimal, precision: 10, scale: 2 }
              loose: decimal
              link: uri
            uniquenessConstraints: [[key]]
        """

    /// Limits, nulls, dates before 1970 and far ahead, a key that is not ASCII.
    static let things = """
        key,small,medium,large,real,single,flag,at,id,bytes,amount,loose,link
        a,-32768,-2147483648,-9223372036854775808,1.5,2.5,true,1900-01-01T00:00:00Z,6ba7b810-9dad-11d1-80b4-00c04fd430c8,aGVsbG8=,12345678.90,0.000000000000000000001,https://example.com/x
        b,32767,2147483647,9223372036854775807,-1e-300,1e30,false,9999-12-31T23:59:59Z,00000000-0000-0000-0000-000000000000,,-99999999.99,123456789012345678901234567890,
        c,,,,,,,,,,,,
        日本,0,0,0,0.1,-0.5,true,1969-12-31T23:59:59.999Z,ffffffff-ffff-ffff-ffff-ffffffffffff,AA==,0.01,-1,https://example.com/%E6%97%A5

        """

    @Test func sparkReadsEveryTypeAPartitionedDatasetAndASnapshot() throws {
        try TestSupport.withTemporaryFolder { folder in
            let model = try TestSupport.write(Array(Self.model.utf8), to: "things.yml", in: folder)
            let things = try TestSupport.write(Array(Self.things.utf8), to: "things.csv", in: folder)
            let store = folder.appendingPathComponent("things.sqlite").path
            let file = folder.appendingPathComponent("things.parquet").path
            let dataset = folder.appendingPathComponent("by-flag").path
            let snapshot = folder.appendingPathComponent("snapshot").path
            let commands = [
                ["import", things, "--store", store, "--model", model, "--entity", "Thing", "--key", "key"],
                ["export", "--store", store, "--entity", "Thing", "--output", file, "--uuids-as-text"],
                [
                    "export", "--store", store, "--entity", "Thing", "--output", dataset, "--format", "parquet",
                    "--partition-by", "flag", "--uuids-as-text",
                ],
                ["snapshot", "--store", store, "--output", snapshot, "--format", "parquet", "--uuids-as-text"],
            ]
            for arguments in commands {
                let result = try ferry.run(arguments + ["--quiet"])
                try #require(result.status == 0, "\(arguments[0]): \(result.standardError)")
            }

            let spark = try ParquetReaders.readWithSpark([file, dataset, snapshot + "/Thing"])
            let types = [
                "key": "string", "small": "smallint", "medium": "int", "large": "bigint", "real": "double",
                "single": "float", "flag": "boolean", "at": "timestamp", "id": "string", "bytes": "binary",
                "amount": "decimal(10,2)", "loose": "string", "link": "string",
            ]
            #expect(spark[0].types == types)
            #expect(spark[0].rows == 4)
            // Value by value as pyarrow reads the same file (which other tests compare with the store).
            let pyarrow = try ParquetReaders.read(file).pyarrow
            for name in types.keys.sorted() {
                #expect(!pyarrow.column(name).isEmpty, "\(name)")
                #expect(spark[0].column(name) == pyarrow.column(name), "\(name)")
            }
            #expect(spark[0].column("at") == ["-2208988800000000", "253402300799000000", nil, "-1000"])

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
