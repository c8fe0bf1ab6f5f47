import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Testing

/// The reject limit is checked before a chunk commits, whatever refused its records and however few were read.
struct ImporterRejectLimitTests {
    /// SKU-1's category exists; SKU-2's and SKU-3's do not (refused while relationships are resolved, inside the
    /// chunk's commit).
    static let unresolved = """
        sku,name,category
        SKU-1,Espresso,Coffee
        SKU-2,Sencha,Nowhere
        SKU-3,Bancha,Nowhere
        """

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func aChunkWhoseUnresolvedRelationshipsBreakTheLimitIsNotCommitted(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let seed = try fixture.file("seed.csv", "sku,name,category\nSKU-9,Seed,Coffee\n")
        _ = try await fixture.importProducts([seed], name: "seed")
        let input = try fixture.file("products.csv", Self.unresolved)
        let rejectsPath = fixture.path("rejects.csv")

        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input]) {
                $0.mode = mode
                $0.chunkSize = 3
                $0.relationships = [RelationshipMapping(column: "category", by: "name", createsMissing: false)]
                $0.maxRejects = .count(1)
                $0.rejectsPath = rejectsPath
            }
        }

        #expect(error?.code == .tooManyRejects)
        #expect(error?.message.contains("2 of 3 records rejected") == true)
        // Nothing of the chunk that broke the limit: not SKU-1, not its rejects, not its checkpoint.
        #expect(try fixture.rows("SELECT sku FROM Product ORDER BY sku") == [[.text("SKU-9")]])
        #expect(
            try fixture.rows(
                "SELECT count(*) FROM ferry_rejects JOIN ferry_runs r ON r.id = run WHERE r.pipeline = 'products'")
                == [[.integer(0)]])
        // The rejects file still shows what stopped the run.
        let rejects = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n")
        #expect(rejects.count == 3 && rejects[1].hasPrefix("SKU-2,") && rejects[2].hasPrefix("SKU-3,"))
    }

    @Test func aRateLimitHoldsForAFewRecords() async throws {
        let fixture = try await ImportFixture()
        var text = "sku,name,price\n"
        for number in 1...16 { text += "SKU-\(number),Name \(number),\(number.isMultiple(of: 2) ? "abc" : "1.00")\n" }
        let input = try fixture.file("products.csv", text)

        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input]) {
                $0.chunkSize = nil
                $0.relationships = []
                $0.maxRejects = .rate(0.05)
            }
        }

        #expect(error?.code == .tooManyRejects)
        #expect(error?.message.contains("8 of 16 records rejected") == true)
        #expect(try fixture.rows("SELECT count(*) FROM Product") == [[.integer(0)]])
    }

    @Test func aRateLimitIsTheShareOfTheRecordsReadSoFar() {
        #expect(RejectLimit.rate(0.05).isExceeded(rejected: 1, read: 16))
        #expect(!RejectLimit.rate(0.05).isExceeded(rejected: 1, read: 20))
        #expect(!RejectLimit.rate(0.5).isExceeded(rejected: 8, read: 16))
    }
}
