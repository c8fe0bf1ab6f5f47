import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Testing

/// The importer in batch mode on real store files: every record accounted for, rejects with reasons, re-runs
/// that change nothing, upserts of partial records, relationships by natural key.
struct ImporterBatchTests {
    @Test func everyRecordIsStoredOrRejectedWithItsReason() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", ImportFixture.products)
        let rejectsPath = fixture.path("rejects.csv")

        let result = try await fixture.importProducts([input]) { $0.rejectsPath = rejectsPath }

        #expect(result.counts.read == 7 && result.counts.inserted == 3 && result.counts.rejected == 4)
        #expect(result.counts.isBalanced)
        #expect(
            try fixture.rows(
                "SELECT p.sku, p.name, p.price, p.quantity, p.active, p.created_at, c.name FROM Product p "
                    + "JOIN Category c ON c._pk = p.category ORDER BY p.sku") == [
                    [
                        .text("SKU-1"), .text("Espresso"), .text("24.9"), .integer(120), .integer(1),
                        .real(1_767_603_600), .text("Coffee"),
                    ],
                    [
                        .text("SKU-2"), .text("Sencha"), .text("8.75"), .integer(200), .integer(1),
                        .real(1_767_744_000), .text("Tea"),
                    ],
                    [
                        .text("SKU-6"), .text("Croissant"), .text("1.95"), .integer(40), .integer(0),
                        .real(1_767_938_400), .text("Bakery"),
                    ],
                ])
        // The derived count follows the rows the batch inserts wrote.
        #expect(
            try fixture.rows("SELECT name, productCount FROM Category ORDER BY name") == [
                [.text("Bakery"), .integer(1)], [.text("Coffee"), .integer(1)], [.text("Tea"), .integer(1)],
            ])
        let rejects = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n")
        #expect(rejects.first == "sku,name,category,price,quantity,active,created_at,_reason,_file,_record,_line")
        #expect(rejects.count == 5)
        #expect(rejects[1].hasPrefix("SKU-3,Bad price,Tea,abc,1,true,,\"column 'price': expected a decimal"))
        #expect(rejects[1].hasSuffix(",\(input),3,4"))
        #expect(rejects[2].contains("column 'price' → 'price'"))
        #expect(rejects[3].hasPrefix("bad-sku,"))
        #expect(
            rejects[3].contains("column 'sku' → 'sku': must match the regular expression '^SKU-[0-9]+$' as a whole"))
        #expect(rejects[4].hasPrefix("SKU-5,,") && rejects[4].contains("a value is required for 'name'"))
    }

    @Test func reRunningTheSameInputChangesNothingAndSaysSo() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", ImportFixture.products)
        _ = try await fixture.importProducts([input])
        let versions = try fixture.rows("SELECT sku, _opt FROM Product ORDER BY sku")

        for policy in [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump] {
            let again = try await fixture.importProducts([input]) { $0.mergePolicy = policy }
            #expect(again.counts.inserted == 0 && again.counts.updated == 0 && again.counts.unchanged == 3)
            #expect(again.counts.rejected == 4 && again.counts.isBalanced)
        }
        #expect(try fixture.rows("SELECT sku, _opt FROM Product ORDER BY sku") == versions)
    }

    @Test func anObjectTrumpUpsertChangesOnlyWhatTheRecordsGive() async throws {
        let fixture = try await ImportFixture()
        _ = try await fixture.importProducts([try fixture.file("products.csv", ImportFixture.products)])
        let updates = try fixture.file(
            "updates.ndjson",
            """
            {"sku":"SKU-1","price":25.90,"quantity":110}
            {"sku":"SKU-2","price":8.75}
            {"sku":"SKU-9","price":3.00}
            {"sku":"SKU-10","name":"New","price":3.00,"category":"Tea"}
            """)

        let result = try await fixture.importProducts([updates]) { $0.mergePolicy = .mergeByPropertyObjectTrump }

        // SKU-2 already had that price; SKU-9 would be new without its mandatory name.
        #expect(result.counts.read == 4 && result.counts.updated == 1 && result.counts.unchanged == 1)
        #expect(result.counts.inserted == 1 && result.counts.rejected == 1)
        #expect(
            try fixture.rows(
                "SELECT sku, name, price, quantity FROM Product WHERE sku IN ('SKU-1', 'SKU-10') ORDER BY sku")
                == [
                    [.text("SKU-1"), .text("Espresso"), .text("25.9"), .integer(110)],
                    [.text("SKU-10"), .text("New"), .text("3"), .null],
                ])
    }

    @Test func aMissingDestinationIsRejectedUnlessTheMappingCreatesIt() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", ImportFixture.products)

        let result = try await fixture.importProducts([input]) {
            $0.relationships = [RelationshipMapping(column: "category", by: "name", createsMissing: false)]
        }

        #expect(result.counts.inserted == 0 && result.counts.rejected == 7 && result.counts.isBalanced)
        #expect(try fixture.rows("SELECT count(*) FROM Category") == [[.integer(0)]])
    }

    @Test func tooManyRejectsStopTheRunWithNothingFurtherCommitted() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", ImportFixture.products)

        let rejectsPath = fixture.path("rejects.csv")
        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input]) {
                $0.maxRejects = .count(1)
                $0.rejectsPath = rejectsPath
            }
        }

        #expect(error?.code == .tooManyRejects)
        // Chunks of two: SKU-1 and SKU-2 committed; SKU-3 and SKU-4 (two rejects) break the limit: not committed.
        #expect(try fixture.rows("SELECT sku FROM Product ORDER BY sku") == [[.text("SKU-1")], [.text("SKU-2")]])
        // The rejects file shows the records that broke the limit, though their chunk was not committed.
        let rejects = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n")
        #expect(rejects.count == 3 && rejects[1].hasPrefix("SKU-3,") && rejects[2].hasPrefix("SKU-4,"))
    }

    @Test func aSpecThatDoesNotFitTheModelFailsBeforeReading() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", ImportFixture.products)
        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input]) { $0.keys = ["name"] }
        }
        #expect(error?.code == .invalidSpec)
        #expect(error?.message.contains("not a uniqueness constraint of Product") == true)
    }

    /// `quantity` is an integer32: a value past its type is refused with the field's reason, in both modes, and the
    /// type's limits themselves are stored.
    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func anInteger32PastItsTypeIsRejectedAndItsLimitsAreStored(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file(
            "products.csv",
            """
            sku,name,category,price,quantity,active,created_at
            SKU-1,Most,Tea,1,2147483647,true,
            SKU-2,Least,Tea,1,-2147483648,true,
            SKU-3,Past most,Tea,1,2147483648,true,
            SKU-4,Past least,Tea,1,-2147483649,true,
            """)
        let rejectsPath = fixture.path("rejects.csv")

        let result = try await fixture.importProducts([input]) {
            $0.mode = mode
            $0.rejectsPath = rejectsPath
        }

        #expect(result.counts.inserted == 2 && result.counts.rejected == 2 && result.counts.isBalanced)
        #expect(
            try fixture.rows("SELECT sku, quantity FROM Product ORDER BY sku") == [
                [.text("SKU-1"), .integer(2_147_483_647)], [.text("SKU-2"), .integer(-2_147_483_648)],
            ])
        let rejects = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n")
        #expect(rejects.count == 3)
        for (line, sku) in zip(rejects.dropFirst(), ["SKU-3", "SKU-4"]) {
            #expect(line.hasPrefix(sku + ","), "\(line)")
            #expect(
                line.contains("column 'quantity': expected an integer32 (-2147483648...2147483647)"), "\(line)")
        }
    }
}

