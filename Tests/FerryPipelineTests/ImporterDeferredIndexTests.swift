import FerryIO
import FerrySQLite
import FerryStore
import Foundation
import Testing

@testable import FerryPipeline

/// An import into an empty table, in either mode, loads it with its indexes deferred and builds them at the end: the
/// result is the one insert-or-ignore gives, and a run that dies first leaves the build to the next.
struct ImporterDeferredIndexTests {
    static let input = """
        sku,name,category
        SKU-1,first one,Coffee
        SKU-2,first two,Tea
        SKU-1,second one,Tea
        SKU-3,three,Coffee
        SKU-2,second two,Coffee
        SKU-1,third one,Coffee
        """

    static let indexQuery = "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'Product_unique_sku'"

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func aLoadIntoAnEmptyTableEndsAsInsertOrIgnoreWouldHaveLeftIt(mode: ImportSpec.Mode) async throws {
        let empty = try await ImportFixture()
        let holding = try await ImportFixture()
        // One row already stored: that table keeps its indexes.
        _ = try await holding.importProducts([try holding.file("seed.csv", "sku,name,category\nSKU-9,nine,Tea\n")])

        let loaded = try await empty.importProducts([try empty.file("products.csv", Self.input)]) { $0.mode = mode }
        let checked = try await holding.importProducts([try holding.file("products.csv", Self.input)]) {
            $0.mode = mode
        }

        // The categories created differ only because the holding store had Tea already.
        #expect(loaded.counts.created == ["Category": 2] && checked.counts.created == ["Category": 1])
        var comparable = checked.counts
        comparable.created = loaded.counts.created
        #expect(loaded.counts == comparable)
        // Each repeated key's later records differ from its first: kept, as insert-or-ignore keeps the first.
        #expect(loaded.counts.read == 6 && loaded.counts.inserted == 3 && loaded.counts.kept == 3)
        #expect(loaded.counts.unchanged == 0)
        let query = "SELECT p.sku, p.name, c.name FROM Product p JOIN Category c ON c._pk = p.category ORDER BY p.sku"
        #expect(try empty.rows(query) == holding.rows(query).filter { $0[0] != .text("SKU-9") })
        #expect(try empty.rows(query).map { $0[1] } == [.text("first one"), .text("first two"), .text("three")])
        // The derived counts follow the rows the build deleted.
        #expect(
            try empty.rows("SELECT name, productCount FROM Category ORDER BY name") == [
                [.text("Coffee"), .integer(2)], [.text("Tea"), .integer(1)],
            ])
        #expect(try empty.rows(Self.indexQuery).count == 1)
        #expect(try empty.rows("SELECT count(*) FROM ferry_deferred_indexes") == [[.integer(0)]])
        let ledger = try await RunLedger(store: empty.container.persistentStore)
        #expect(try await ledger.runs(pipeline: "products").first?.counts == loaded.counts)
    }

    @Test func indexesARunDeferredAndNeverBuiltAreBuiltByTheNextRunWhichCorrectsItsCounts() async throws {
        let fixture = try await ImportFixture()
        let store = fixture.container.persistentStore
        let ledger = try await RunLedger(store: store)
        // A run that died after committing its rows, before building the indexes it deferred.
        let dead = try await ledger.start(pipeline: "products")
        #expect(try await store.deferIndexes(ofEntity: "Product", owner: RunLedger.indexOwner(run: dead)))
        _ = try await store.execute(
            BatchInsertRequest(
                entityName: "Product",
                objects: ["1", "2", "1", "1"].map { ["sku": .string("SKU-\($0)"), "name": .string($0)] }),
            mergePolicy: .mergeByPropertyStoreTrump)
        var died = StepCounts()
        died.read = 4
        died.inserted = 4
        try await ledger.finish(run: dead, status: .failed, counts: died, seconds: 1)
        #expect(try fixture.rows(Self.indexQuery).isEmpty)

        let next = try await fixture.importProducts(
            [try fixture.file("more.csv", "sku,name,category\nSKU-1,again,Tea\nSKU-3,three,Tea\n")], name: "more")

        // SKU-1 is stored with another name: kept.
        #expect(next.counts.inserted == 1 && next.counts.kept == 1)
        #expect(try fixture.rows(Self.indexQuery).count == 1)
        #expect(
            try fixture.rows("SELECT sku, name FROM Product ORDER BY sku") == [
                [.text("SKU-1"), .text("1")], [.text("SKU-2"), .text("2")], [.text("SKU-3"), .text("three")],
            ])
        var corrected = died
        corrected.inserted = 2
        corrected.unchanged = 2
        #expect(try await ledger.runs(pipeline: "products").first?.counts == corrected)
    }
}
