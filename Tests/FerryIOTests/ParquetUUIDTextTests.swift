import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// ``ParquetWriter/Options/writesUUIDsAsText``: UUID columns written as STRING columns of their lower-case text, for
/// readers without Parquet's UUID type (Apache Spark refuses a file with one).
@Suite("Parquet UUIDs as text")
struct ParquetUUIDTextTests {
    static let columns = [
        ParquetColumn(name: "id", type: .uuid), ParquetColumn(name: "key", type: .uuid, isOptional: false),
    ]
    static let texts = [
        "6f9619ff-8b86-d011-b42d-00c04fc964ff", "00000000-0000-0000-0000-000000000000",
        "0a1b2c3d-4e5f-6a7b-8c9d-aebfc0d1e2f3", "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ]

    static func bytes(_ text: String) -> [UInt8] {
        withUnsafeBytes(of: (UUID(uuidString: text) ?? UUID()).uuid) { Array($0) }
    }

    static var options: ParquetWriter.Options {
        var options = ParquetWriter.Options()
        options.writesUUIDsAsText = true
        return options
    }

    @Test("UUID columns become STRING columns of the lower-case text, read as text by pyarrow and DuckDB")
    func stringColumns() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("ids.parquet").path
            let writer = try ParquetWriter(path: path, columns: Self.columns, options: Self.options)
            #expect(writer.columns.map(\.type) == [.string, .string])
            try writer.writeAll(
                Self.texts.enumerated().map { index, text in
                    [index == 2 ? .null : .bytes(Self.bytes(text)), .bytes(Self.bytes(text))]
                })
            let readings = try ParquetReaders.read(path)
            for reading in [readings.pyarrow, readings.duckdb] {
                #expect(reading.column("id") == [Self.texts[0], Self.texts[1], nil, Self.texts[3]])
                #expect(reading.column("key") == Self.texts)
            }
            for element in readings.pyarrow.schema {
                #expect(element["physical"] as? String == "BYTE_ARRAY")
                #expect(element["logical"] as? String == "String")
                #expect(element["arrow"] as? String == "string")
            }
            #expect(readings.duckdb.types["id"] == "VARCHAR")
            #expect(readings.duckdb.types["key"] == "VARCHAR")
            // The text orders as the bytes do: the statistics are the text of the smallest and largest UUIDs.
            let key = readings.pyarrow.chunk(group: 0, column: 1)
            #expect(key["min"] as? String == hex(Self.texts[1]))
            #expect(key["max"] as? String == hex(Self.texts[3]))
        }
    }

    @Test("Without the option a UUID column keeps Parquet's UUID type")
    func uuidColumnsByDefault() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("ids.parquet").path
            let writer = try ParquetWriter(path: path, columns: Self.columns)
            #expect(writer.columns.map(\.type) == [.uuid, .uuid])
            try writer.writeAll([[.bytes(Self.bytes(Self.texts[0])), .bytes(Self.bytes(Self.texts[0]))]])
            let readings = try ParquetReaders.read(path)
            #expect(readings.duckdb.types["id"] == "UUID")
            #expect(readings.pyarrow.schema.first?["logical"] as? String == "UUID")
        }
    }

    @Test("A value of other than 16 bytes for a UUID column written as text is refused", arguments: [15, 17, 36])
    func wrongLength(count: Int) throws {
        try TestSupport.withTemporaryFolder { folder in
            let writer = try ParquetWriter(
                path: folder.appendingPathComponent("ids.parquet").path, columns: Self.columns, options: Self.options)
            do {
                try writer.writeAll([[.bytes(Array(repeating: 0x41, count: count)), .bytes(Self.bytes(Self.texts[0]))]])
                Issue.record("a \(count)-byte UUID was accepted")
            } catch let error as FerryIOError {
                #expect(error.code == .invalidValue)
                #expect(error.message == "column id holds 16-byte UUIDs")
            }
        }
    }
}
