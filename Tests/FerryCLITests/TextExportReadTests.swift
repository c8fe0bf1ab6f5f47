import FerryTestSupport
import Foundation
import Testing

/// Python's `csv` and `json` modules and DuckDB read what `ferry export` writes as CSV, TSV, NDJSON and JSON: values
/// with line breaks (LF and CRLF), quotes, commas and tabs, spaces at both ends, text that is not ASCII, integers at
/// their limits, a decimal of 30 digits, and an empty string beside a null, which DuckDB tells apart in CSV (a
/// quoted empty field against an unquoted one) and both tell apart in JSON.
struct TextExportReadTests {
    let ferry = BuiltCommand(product: "ferry")

    /// Records for ``EveryTypeStore``'s model, in the attributes this test exports.
    static let notes = #"""
        {"key":"plain","text":"hello","large":9223372036854775807,"real":0.1,"at":"2026-01-05T09:00:00Z","id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","loose":"24.90"}
        {"key":"multi\nline \"q\", comma","text":"","large":-1,"real":-1e-300,"at":"1969-12-31T23:59:59.999Z","loose":"123456789012345678901234567890"}
        {"key":" spaced "}
        {"key":"日本","text":"tab\there","large":0,"real":1e16,"at":"2026-01-05T09:00:00.123456Z","id":"FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF","loose":"-0.001"}
        {"key":"crlf","text":"a\r\nb","large":-9223372036854775808,"real":2.5,"at":"1900-01-01T00:00:00Z","loose":"0"}

        """#

    /// The attributes exported, in order.
    static let columns = ["key", "text", "large", "real", "at", "id", "loose"]

    /// The rows as the export writes their values, `nil` for null.
    static let exported: [[String?]] = [
        [
            "plain", "hello", "9223372036854775807", "0.1", "2026-01-05T09:00:00Z",
            "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "24.9",
        ],
        [
            "multi\nline \"q\", comma", "", "-1", "-1e-300", "1969-12-31T23:59:59.999Z", nil,
            "123456789012345678901234567890",
        ],
        [" spaced ", nil, nil, nil, nil, nil, nil],
        [
            "日本", "tab\there", "0", "1e+16", "2026-01-05T09:00:00.123456Z", "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "-0.001",
        ],
        ["crlf", "a\r\nb", "-9223372036854775808", "2.5", "1900-01-01T00:00:00Z", nil, "0"],
    ]

    /// The `at` column as microseconds since 1970, as DuckDB reads it into a timestamp.
    static let microseconds: [String?] = ["1767603600000000", "-1000", nil, "1767603600123456", "-2208988800000000"]

    /// The column `name` of ``exported``.
    static func column(_ name: String) -> [String?] {
        guard let index = columns.firstIndex(of: name) else {
            Issue.record("no column \(name) in the expected rows")
            return []
        }
        return exported.map { $0[index] }
    }

    @Test func pythonAndDuckDBReadEveryTextFormatAsWritten() throws {
        try TestSupport.withTemporaryFolder { folder in
            let notes = try TestSupport.write(Array(Self.notes.utf8), to: "notes.ndjson", in: folder)
            let store = try EveryTypeStore(importing: notes, into: "notes.sqlite", in: folder, ferry: ferry)
            var outputs: [String: String] = [:]
            for format in ["csv", "tsv", "ndjson", "json"] {
                let output = folder.appendingPathComponent("notes.\(format)").path
                try store.run([
                    "export", "--entity", "Thing", "--fields", Self.columns.joined(separator: ","), "--output", output,
                ])
                outputs[format] = output
            }

            for tabs in [false, true] {
                let format = tabs ? "TSV" : "CSV"
                let (lines, duckdb) = try TextReaders.readCSV(outputs[tabs ? "tsv" : "csv"]!, tabs: tabs)
                // Python's csv module has no null: both read as "".
                #expect(lines == [Self.columns] + Self.exported.map { $0.map { $0 ?? "" } }, "\(format), Python")
                #expect(duckdb.rows == Self.exported.count, "\(format), DuckDB")
                for name in ["key", "text", "large", "real", "id"] {
                    #expect(duckdb.column(name) == Self.column(name), "\(format), DuckDB: \(name)")
                }
                #expect(duckdb.column("at") == Self.microseconds, "\(format), DuckDB")
                #expect(duckdb.types["large"] == "BIGINT", "\(format), DuckDB")
                #expect(duckdb.types["at"] == "TIMESTAMP WITH TIME ZONE", "\(format), DuckDB")
            }

            for lines in [true, false] {
                let format = lines ? "NDJSON" : "JSON"
                let (objects, duckdb) = try TextReaders.readJSON(outputs[lines ? "ndjson" : "json"]!, lines: lines)
                let expected = Self.exported.map { Dictionary(uniqueKeysWithValues: zip(Self.columns, $0)) }
                #expect(objects == expected, "\(format), Python")
                #expect(duckdb.rows == Self.exported.count, "\(format), DuckDB")
                for name in ["key", "text", "large", "real", "id"] {
                    #expect(duckdb.column(name) == Self.column(name), "\(format), DuckDB: \(name)")
                }
                #expect(duckdb.column("at") == Self.microseconds, "\(format), DuckDB")
                #expect(duckdb.types["id"] == "UUID", "\(format), DuckDB")
            }
        }
    }
}
