import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Testing

/// An NDJSON line that is not one well-formed JSON object is a rejected record, like a CSV record of the wrong
/// width: the rest of the input is read and stored, and the counts balance.
struct ImporterMalformedLineTests {
    /// Line 2 has an unquoted key; line 5 is cut short.
    static let products = """
        {"sku":"SKU-1","name":"Espresso","price":24.90}
        {"sku":"SKU-2","name":"Sencha",price:8.75}
        {"sku":"SKU-3","name":"Croissant","price":1.95}
        {"sku":"SKU-4","name":"Muffin","price":2.50}
        {"sku":"SKU-5","name":"Bagel
        {"sku":"SKU-6","name":"Scone","price":3.10}
        """

    static let badLine = #"{"sku":"SKU-2","name":"Sencha",price:8.75}"#
    static let cutLine = #"{"sku":"SKU-5","name":"Bagel"#

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func aMalformedLineIsRejectedWithItsTextAndTheRestIsStored(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.ndjson", Self.products)
        let rejectsPath = fixture.path("rejects.ndjson")

        let result = try await fixture.importProducts([input]) {
            $0.mode = mode
            $0.relationships = []
            $0.rejectsPath = rejectsPath
        }

        #expect(result.counts.read == 6 && result.counts.inserted == 4 && result.counts.rejected == 2)
        #expect(result.counts.updated == 0 && result.counts.unchanged == 0 && result.counts.isBalanced)
        #expect(
            try fixture.rows("SELECT sku FROM Product ORDER BY sku")
                == ["SKU-1", "SKU-3", "SKU-4", "SKU-6"].map { [.text($0)] })

        let lines = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n")
        let rejects = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(rejects.count == 2)
        let keyColumn = #"{"sku":"SKU-2","name":"Sencha","#.utf8.count + 1
        #expect(rejects.first?[RejectedRecord.recordTextField] as? String == Self.badLine)
        #expect(rejects.first?["_record"] as? Int == 2 && rejects.first?["_line"] as? Int == 2)
        #expect(
            rejects.first?["_reason"] as? String
                == "line 2, column \(keyColumn): expected a string key after ','")
        #expect(rejects.first?["_file"] as? String == input)
        #expect(rejects.last?[RejectedRecord.recordTextField] as? String == Self.cutLine)
        #expect(rejects.last?["_record"] as? Int == 5 && rejects.last?["_line"] as? Int == 5)
        #expect(
            (rejects.last?["_reason"] as? String)?.hasPrefix("line 5, column \(Self.cutLine.utf8.count + 1): ") == true)

        #expect(
            try fixture.rows("SELECT record, line FROM ferry_rejects ORDER BY seq")
                == [[.integer(2), .integer(2)], [.integer(5), .integer(5)]])
    }

    @Test func aStoppedRunWithMalformedLinesResumesToTheStateOfAnUninterruptedOne() async throws {
        let interrupted = try await ImportFixture()
        let straight = try await ImportFixture()
        let configure: (inout ImportSpec) -> Void = {
            $0.relationships = []
            $0.chunkSize = 3
        }
        let expected = try await straight.importProducts(
            [try straight.file("products.ndjson", Self.products)], configure)

        let input = try interrupted.file("products.ndjson", Self.products)
        let stop = StopSignal()
        _ = await #expect(throws: PipelineError.self) {
            try await interrupted.importProducts([input], stop: stop, configure) { progress in
                if progress.counts.read >= 3 { stop.raise("SIGTERM") }
            }
        }
        #expect(try interrupted.rows("SELECT sku FROM Product ORDER BY sku") == [[.text("SKU-1")], [.text("SKU-3")]])

        let resumed = try await interrupted.importProducts([input], resume: true, configure)

        #expect(resumed.counts == expected.counts)
        #expect(resumed.counts.read == 6 && resumed.counts.rejected == 2 && resumed.counts.isBalanced)
        let query = "SELECT sku, name, price FROM Product ORDER BY sku"
        #expect(try interrupted.rows(query) == straight.rows(query))
    }

    /// A full sync keeps the rows of refused records; a record that cannot be read has no key to keep, so the step
    /// stops at it rather than delete its row.
    @Test func aMalformedLineStopsAFullSyncBeforeItDeletesAnything() async throws {
        let fixture = try await ImportFixture()
        let complete = Self.products.replacingOccurrences(of: "price:", with: "\"price\":")
            .replacingOccurrences(of: #""Bagel"#, with: #""Bagel","price":1.00}"#)
        _ = try await fixture.importProducts([try fixture.file("complete.ndjson", complete)]) {
            $0.relationships = []
        }
        #expect(try fixture.rows("SELECT count(*) FROM Product") == [[.integer(6)]])

        let error = await #expect(throws: FerryIOError.self) {
            try await fixture.importProducts([try fixture.file("products.ndjson", Self.products)]) {
                $0.relationships = []
                $0.fullSync = FullSync(maxDeleteFraction: 1)
            }
        }

        #expect(error?.code == .invalidJSON && error?.line == 2 && error?.record == 2)
        #expect(try fixture.rows("SELECT count(*) FROM Product") == [[.integer(6)]])
    }
}
