import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// What `ferry export` writes, `ferry import` reads back to the same rows, in every text format: the limits of every
/// type (the largest float's shortest text, doubles from 5e-324 to 1.7976931348623157e308, decimals at their declared
/// precision and at 38 digits, the first and last instants of years 0000 to 9999), every byte value in a binary, and
/// text with line breaks, quotes, tabs and characters that are not ASCII. Exporting the re-imported store writes the
/// same bytes again.
struct ExportImportRoundTripTests {
    let ferry = BuiltCommand(product: "ferry")

    static let everyByte = Data((0...255).map { UInt8($0) }).base64EncodedString()

    static let limits = #"""
        {"key":"low","text":"","small":-32768,"medium":-2147483648,"large":-9223372036854775808,"real":-1.7976931348623157e308,"single":-3.4028235e38,"flag":false,"at":"0000-01-01T00:00:00Z","id":"00000000-0000-0000-0000-000000000000","amount":"-99999999.99","loose":"-99999999999999999999999999999999999999","link":"a:b"}
        {"key":"high","text":"multi\nline \"q\", comma\ttab\r\nend","small":32767,"medium":2147483647,"large":9223372036854775807,"real":1.7976931348623157e308,"single":3.4028235e38,"flag":true,"at":"9999-12-31T23:59:59.999Z","id":"FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF","bytes":"\#(everyByte)","amount":"99999999.99","loose":"0.00000000000000000000000000000000000001","link":"https://example.com/a%20b?q=1#f"}
        {"key":"tiny","text":" spaced ","small":0,"medium":0,"large":0,"real":5e-324,"single":1.4e-45,"flag":true,"at":"1969-12-31T23:59:59.999999Z","id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","bytes":"AA==","amount":"0.01","loose":"24.90","link":"urn:isbn:0451450523"}
        {"key":"nulls"}
        {"key":"日本 ✓","text":"日本語 — ünïcödé 🎉","real":0.1,"single":0.1,"at":"2026-01-05T09:00:00.123456Z","loose":"-0.001"}

        """#

    @Test(arguments: ["csv", "tsv", "ndjson", "json"])
    func anExportImportsBackToTheSameRows(format: String) throws {
        try TestSupport.withTemporaryFolder { folder in
            let input = try TestSupport.write(Array(Self.limits.utf8), to: "limits.ndjson", in: folder)
            let exported = folder.appendingPathComponent("first.\(format)").path
            let reexported = folder.appendingPathComponent("second.\(format)").path
            let first = try EveryTypeStore(importing: input, into: "first.sqlite", in: folder, ferry: ferry)
            try first.run(["export", "--entity", "Thing", "--output", exported])
            let second = try EveryTypeStore(importing: exported, into: "second.sqlite", in: folder, ferry: ferry)
            try second.run(["export", "--entity", "Thing", "--output", reexported])

            let columns = EveryTypeStore.attributes.joined(separator: ", ")
            let rows = try Self.rows(first.store, "SELECT \(columns) FROM Thing ORDER BY _pk")
            #expect(rows.count == 5)
            #expect(try Self.rows(second.store, "SELECT \(columns) FROM Thing ORDER BY _pk") == rows)
            for store in [first.store, second.store] {
                #expect(try Self.rows(store, "SELECT count(*) FROM ferry_rejects") == [Row([.integer(0)])])
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: exported))
            #expect(try Data(contentsOf: URL(fileURLWithPath: reexported)) == bytes)
        }
    }

    private static func rows(_ path: String, _ sql: String) throws -> [Row] {
        // A statement holds its connection unowned: the connection must outlive it.
        let connection = try Connection(path: path, mode: .readOnly)
        return try withExtendedLifetime(connection) { try connection.prepare(sql).fetchAll() }
    }
}
