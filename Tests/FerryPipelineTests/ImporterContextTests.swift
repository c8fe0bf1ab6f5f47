import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Testing

/// The importer in context mode: managed objects, validation, merge policies, and the same counts as batch mode.
struct ImporterContextTests {
    @Test func contextModeStoresAndRejectsWhatBatchModeDoes() async throws {
        let context = try await ImportFixture()
        let batch = try await ImportFixture()
        let viaContext = try await context.importProducts([try context.file("p.csv", ImportFixture.products)]) {
            $0.mode = .context
        }
        let viaBatch = try await batch.importProducts([try batch.file("p.csv", ImportFixture.products)])

        #expect(viaContext.counts == viaBatch.counts)
        let query =
            "SELECT p.sku, p.name, p.price, p.quantity, p.active, p.created_at, c.name, c.productCount FROM Product p "
            + "JOIN Category c ON c._pk = p.category ORDER BY p.sku"
        #expect(try context.rows(query) == batch.rows(query))
    }

    @Test func aStoredKeyIsKeptUnderStoreTrumpAndUpdatedUnderObjectTrump() async throws {
        let fixture = try await ImportFixture()
        _ = try await fixture.importProducts([try fixture.file("p.csv", ImportFixture.products)]) { $0.mode = .context }
        let changed = try fixture.file(
            "changed.csv", "sku,name,price\nSKU-1,Espresso,30.00\nSKU-2,Sencha,8.75\nSKU-7,Muffin,2.50\n")

        let kept = try await fixture.importProducts([changed]) {
            $0.mode = .context
            $0.relationships = []
        }
        // SKU-1's price differs: kept (store-trump); SKU-2's values are the stored ones: unchanged.
        #expect(kept.counts.inserted == 1 && kept.counts.unchanged == 1 && kept.counts.updated == 0)
        #expect(kept.counts.kept == 1)
        #expect(try fixture.rows("SELECT price FROM Product WHERE sku = 'SKU-1'") == [[.text("24.9")]])

        let updated = try await fixture.importProducts([changed]) {
            $0.mode = .context
            $0.relationships = []
            $0.mergePolicy = .mergeByPropertyObjectTrump
        }
        #expect(updated.counts.updated == 1 && updated.counts.unchanged == 2 && updated.counts.inserted == 0)
        #expect(
            try fixture.rows("SELECT price, _opt FROM Product WHERE sku = 'SKU-1'") == [[.text("30"), .integer(2)]])
    }

    /// Records tied together only by their key are applied in key order (so the save walks the uniqueness index
    /// once): each chunk's new rows get their primary keys in that order, and a record refused at the save is still
    /// reported where it was read. (A first load has no index to walk: ImporterDeferredIndexTests.)
    @Test func aChunksRecordsAreInsertedInKeyOrderAndRefusedWhereTheyWereRead() async throws {
        let fixture = try await ImportFixture()
        _ = try await fixture.importProducts([try fixture.file("seed.csv", "sku,name\nSKU-9,Seed\n")], name: "seed") {
            $0.relationships = []
        }
        let rejectsPath = fixture.path("rejects.ndjson")
        let text = "sku,name,price\nSKU-3,Third,3\nSKU-1,First,1\nSKU-5,,5\nSKU-4,Fourth,4\nSKU-2,Second,2\n"
        let result = try await fixture.importProducts([try fixture.file("p.csv", text)]) {
            $0.mode = .context
            $0.chunkSize = 10
            $0.relationships = []
            $0.rejectsPath = rejectsPath
        }

        #expect(result.counts.inserted == 4 && result.counts.rejected == 1)
        #expect(
            try fixture.rows("SELECT sku FROM Product ORDER BY _pk")
                == ["SKU-9", "SKU-1", "SKU-2", "SKU-3", "SKU-4"].map { [.text($0)] })
        let rejects = try ImporterContextRefusalTests.rejects(rejectsPath)
        #expect(rejects.map { [$0.sku, "\($0.record)", "\($0.line)"] } == [["SKU-5", "3", "4"]])
    }

    /// A relationship that creates missing destinations ties records together beyond their key: they are applied
    /// in record order.
    @Test func recordsThatCreateDestinationsAreInsertedInRecordOrder() async throws {
        let fixture = try await ImportFixture()
        let text = "sku,name,category\nSKU-3,Third,Tea\nSKU-1,First,Coffee\nSKU-2,Second,Tea\n"
        _ = try await fixture.importProducts([try fixture.file("p.csv", text)]) {
            $0.mode = .context
            $0.chunkSize = 10
        }

        #expect(
            try fixture.rows("SELECT sku FROM Product ORDER BY _pk")
                == ["SKU-3", "SKU-1", "SKU-2"].map { [.text($0)] })
    }

    /// A key repeated within a chunk is handled as one repeated across chunks, so the result does not depend on
    /// the chunk size: batch mode and a chunk of one record agree.
    @Test(arguments: [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump])
    func aKeyRepeatedWithinAChunkGetsTheMergePolicyOfAStoredKey(policy: MergePolicy) async throws {
        let text = "sku,name,price\nSKU-1,First,1.00\nSKU-2,Other,2.00\nSKU-1,Second,3.00\n"
        var results: [[[SQLiteValue]]] = []
        var counts: [StepCounts] = []
        for (mode, chunkSize) in [(ImportSpec.Mode.context, 10), (.context, 1), (.batch, 10)] {
            let fixture = try await ImportFixture()
            let result = try await fixture.importProducts([try fixture.file("p.csv", text)]) {
                $0.mode = mode
                $0.chunkSize = chunkSize
                $0.relationships = []
                $0.mergePolicy = policy
            }
            counts.append(result.counts)
            results.append(try fixture.rows("SELECT sku, name, price FROM Product ORDER BY sku"))
        }

        let kept = policy == .mergeByPropertyStoreTrump
        #expect(results[0].first == [.text("SKU-1"), .text(kept ? "First" : "Second"), .text(kept ? "1" : "3")])
        #expect(results.allSatisfy { $0 == results[0] })
        #expect(counts.allSatisfy { $0 == counts[0] }, "\(counts)")
        // The repeat's values differ: store-trump keeps the first record's (kept), object-trump takes them.
        #expect(counts[0].inserted == 2 && (kept ? counts[0].kept : counts[0].updated) == 1)
        #expect(counts[0].unchanged == 0)
    }

    /// The next chunk is applied while the one before it saves, unless they share a key: then a record whose key
    /// the previous chunk stores meets that row, as when chunks go one after the other.
    @Test(arguments: [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump])
    func aChunkSharingAKeyWithThePreviousOneMeetsItsStoredRow(policy: MergePolicy) async throws {
        // Chunks of two: (1, 2) (2, 3) (4, 5) (1, 6): the second shares SKU-2 with the first; the last shares SKU-1
        // with the first only, so it is applied ahead.
        let text = """
            sku,name,price
            SKU-1,A,1.00
            SKU-2,B,2.00
            SKU-2,B2,2.50
            SKU-3,C,3.00
            SKU-4,D,4.00
            SKU-5,E,5.00
            SKU-1,A2,1.50
            SKU-6,F,6.00

            """
        let fixture = try await ImportFixture()
        let result = try await fixture.importProducts([try fixture.file("p.csv", text)]) {
            $0.mode = .context
            $0.chunkSize = 2
            $0.relationships = []
            $0.mergePolicy = policy
        }

        let kept = policy == .mergeByPropertyStoreTrump
        #expect(result.counts.read == 8 && result.counts.inserted == 6 && result.counts.rejected == 0)
        #expect((kept ? result.counts.kept : result.counts.updated) == 2 && result.counts.unchanged == 0)
        #expect(
            try fixture.rows("SELECT sku, name, price FROM Product ORDER BY sku") == [
                [.text("SKU-1"), .text(kept ? "A" : "A2"), .text(kept ? "1" : "1.5")],
                [.text("SKU-2"), .text(kept ? "B" : "B2"), .text(kept ? "2" : "2.5")],
                [.text("SKU-3"), .text("C"), .text("3")], [.text("SKU-4"), .text("D"), .text("4")],
                [.text("SKU-5"), .text("E"), .text("5")], [.text("SKU-6"), .text("F"), .text("6")],
            ])
    }

    @Test func underTheErrorPolicyAKeyRepeatedWithinAChunkFailsTheStep() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("p.csv", "sku,name\nSKU-1,First\nSKU-1,Second\n")
        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input]) {
                $0.mode = .context
                $0.chunkSize = 10
                $0.relationships = []
                $0.mergePolicy = .error
            }
        }
        #expect(error?.code == .conflict)
        #expect(try fixture.rows("SELECT count(*) FROM Product") == [[.integer(0)]])
    }

    @Test func underTheErrorPolicyAStoredKeyFailsTheStep() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("p.csv", ImportFixture.products)
        _ = try await fixture.importProducts([input]) { $0.mode = .context }
        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input]) {
                $0.mode = .context
                $0.mergePolicy = .error
            }
        }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("SKU-1") == true)
    }
}
