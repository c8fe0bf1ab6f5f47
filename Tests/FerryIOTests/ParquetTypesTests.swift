import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// Every value type ``ParquetWriter`` writes, read back by pyarrow and DuckDB and compared value by value, with
/// the schema each reader sees and the footer's statistics.
@Suite("Parquet value types")
struct ParquetTypesTests {
    static let columns = [
        ParquetColumn(name: "text", type: .string),
        ParquetColumn(name: "key", type: .string, isOptional: false),
        ParquetColumn(name: "blob", type: .binary),
        ParquetColumn(name: "small", type: .int16),
        ParquetColumn(name: "medium", type: .int32),
        ParquetColumn(name: "large", type: .int64),
        ParquetColumn(name: "single", type: .float),
        ParquetColumn(name: "real", type: .double),
        ParquetColumn(name: "flag", type: .boolean),
        ParquetColumn(name: "moment", type: .timestampMicros),
        ParquetColumn(name: "id", type: .uuid),
        ParquetColumn(name: "price", type: .decimal(precision: 9, scale: 2)),
        ParquetColumn(name: "amount", type: .decimal(precision: 18, scale: 4)),
        ParquetColumn(name: "huge", type: .decimal(precision: 38, scale: 10)),
    ]

    static let longText = String(repeating: "long é😀 text ", count: 20_000)
    static let bigBlob: [UInt8] = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
    static let uuid = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF") ?? UUID()
    static var uuidBytes: [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }

    /// The rows: limits of every type, nulls in every optional column, empty values, unicode, long values.
    static let rows: [[ParquetTestValue]] = [
        [
            .text(""), .text("k1"), .bytes([]), .integer(Int64(Int16.min)), .integer(Int64(Int32.min)),
            .integer(Int64.min), .real(-3.4028234663852886e+38), .real(-1.7976931348623157e+308), .boolean(false),
            .integer(-62_135_596_800_000_000), .bytes(uuidBytes), .decimal("-9999999.99"),
            .decimal("-99999999999999.9999"), .decimal("-9999999999999999999999999999.9999999999"),
        ],
        [
            .text("é😀 ünïcödé 中文"), .text("k2"), .bytes([0, 1, 2, 255]), .integer(Int64(Int16.max)),
            .integer(Int64(Int32.max)), .integer(Int64.max), .real(3.4028234663852886e+38),
            .real(1.7976931348623157e+308), .boolean(true), .integer(253_402_300_799_999_999), .bytes(uuidBytes),
            .decimal("9999999.99"), .decimal("99999999999999.9999"),
            .decimal("9999999999999999999999999999.9999999999"),
        ],
        [
            .null, .text(""), .null, .null, .null, .null, .null, .null, .null, .null, .null, .null, .null, .null,
        ],
        [
            .text(longText), .text("k4"), .bytes(bigBlob), .integer(0), .integer(-1), .integer(1), .real(-0.0),
            .real(0.1), .boolean(true), .integer(-1), .null, .decimal("0.01"), .decimal("-0.0001"),
            .decimal("0.0000000001"),
        ],
        [
            .text("plain"), .text("k5"), .bytes(Array("abc".utf8)), .integer(7), .integer(42), .integer(1 << 40),
            .real(1.5), .real(-2.5e-300), .boolean(false), .integer(1_767_603_600_123_456), .null,
            .decimal("12.5"), .decimal("1e3"), .decimal("-12.50"),
        ],
    ]

    /// What the readers print for `rows`, column by column.
    static let expected: [[String?]] = [
        [
            "", "k1", "", "-32768", "-2147483648", "-9223372036854775808", "-3.4028234663852886e+38",
            "-1.7976931348623157e+308", "false", "-62135596800000000", "6f9619ff-8b86-d011-b42d-00c04fc964ff",
            "-9999999.99", "-99999999999999.9999", "-9999999999999999999999999999.9999999999",
        ],
        [
            "é😀 ünïcödé 中文", "k2", "000102ff", "32767", "2147483647", "9223372036854775807",
            "3.4028234663852886e+38", "1.7976931348623157e+308", "true", "253402300799999999",
            "6f9619ff-8b86-d011-b42d-00c04fc964ff", "9999999.99", "99999999999999.9999",
            "9999999999999999999999999999.9999999999",
        ],
        [nil, "", nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil],
        [
            longText, "k4", hex(bigBlob), "0", "-1", "1", "-0.0", "0.1", "true", "-1", nil, "0.01", "-0.0001",
            "1E-10",
        ],
        [
            "plain", "k5", hex(Array("abc".utf8)), "7", "42", "1099511627776", "1.5", "-2.5e-300", "false",
            "1767603600123456", nil, "12.50", "1000.0000", "-12.5000000000",
        ],
    ]

    @Test(
        "Every type, its limits, nulls, empty and unicode strings, long strings and large binaries read back the same in pyarrow and DuckDB",
        arguments: ParquetCompression.allCases)
    func everyTypeReadsBack(compression: ParquetCompression) throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("types.parquet").path
            var options = ParquetWriter.Options()
            options.compression = compression
            try ParquetWriter(path: path, columns: Self.columns, options: options).writeAll(Self.rows)
            let readings = try expectBothReaders(
                path, columns: Self.columns.map(\.name), expected: Self.expected, floatColumns: ["single", "real"])
            let chunk = readings.pyarrow.chunk(group: 0, column: 0)
            #expect(chunk["compression"] as? String == compression.rawValue.uppercased())
        }
    }

    @Test("Each type has its physical and logical type, and optional columns alone have definition levels")
    func schemaTypes() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("types.parquet").path
            try ParquetWriter(path: path, columns: Self.columns).writeAll(Self.rows)
            let readings = try ParquetReaders.read(path)
            let schema = Dictionary(
                uniqueKeysWithValues: readings.pyarrow.schema.map { ($0["name"] as? String ?? "", $0) })
            let expected: [(String, String, String, String)] = [
                ("text", "BYTE_ARRAY", "String", "string"), ("key", "BYTE_ARRAY", "String", "string"),
                ("blob", "BYTE_ARRAY", "None", "binary"), ("small", "INT32", "Int(bitWidth=16, isSigned=true)", "int16"),
                ("medium", "INT32", "Int(bitWidth=32, isSigned=true)", "int32"), ("large", "INT64", "None", "int64"),
                ("single", "FLOAT", "None", "float"), ("real", "DOUBLE", "None", "double"),
                ("flag", "BOOLEAN", "None", "bool"),
                ("moment", "INT64", "Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false)", "timestamp[us, tz=UTC]"),
                ("id", "FIXED_LEN_BYTE_ARRAY", "UUID", "extension<arrow.uuid>"),
                ("price", "INT32", "Decimal(precision=9, scale=2)", "decimal128(9, 2)"),
                ("amount", "INT64", "Decimal(precision=18, scale=4)", "decimal128(18, 4)"),
                ("huge", "FIXED_LEN_BYTE_ARRAY", "Decimal(precision=38, scale=10)", "decimal128(38, 10)"),
            ]
            for (name, physical, logical, arrow) in expected {
                let element = schema[name] ?? [:]
                #expect(element["physical"] as? String == physical, "\(name)")
                #expect(element["logical"] as? String == logical, "\(name)")
                #expect(element["arrow"] as? String == arrow, "\(name)")
                #expect(element["maxDefinitionLevel"] as? Int == (name == "key" ? 0 : 1), "\(name)")
            }
            #expect(readings.pyarrow.json["createdBy"] as? String == "ferry version \(FerryVersion.current)")
            let duckdb = readings.duckdb.types
            #expect(duckdb["moment"] == "TIMESTAMP WITH TIME ZONE")
            #expect(duckdb["id"] == "UUID")
            #expect(duckdb["small"] == "SMALLINT")
            #expect(duckdb["huge"] == "DECIMAL(38,10)")
            #expect(duckdb["text"] == "VARCHAR")
            #expect(duckdb["blob"] == "BLOB")
        }
    }
}
