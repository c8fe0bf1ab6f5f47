import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Work that commits with a write or not at all (the importer's checkpoints), and upserts that change nothing.
struct TransactionCompanionTests {
    private struct Refused: Error {}

    private static let ledger = "CREATE TABLE IF NOT EXISTS ferry_test_ledger (note TEXT)"

    @Test func aBatchInsertCommitsItsCompanionsWritesWithItsRows() async throws {
        let fixture = try await BatchTestFixture.make()
        var request = BatchInsertRequest(entityName: "Product", objects: [["sku": .string("A")]])
        request.companion = { connection, _ in
            try connection.execute(Self.ledger)
            try connection.execute("INSERT INTO ferry_test_ledger VALUES ('chunk 1')")
        }
        _ = try await fixture.store.execute(request, mergePolicy: .error)
        #expect(try fixture.rows("SELECT note FROM ferry_test_ledger") == [[.text("chunk 1")]])
        #expect(try fixture.rows("SELECT count(*) FROM Product") == [[.integer(1)]])
    }

    @Test func aCompanionThatThrowsRollsTheBatchInsertBack() async throws {
        let fixture = try await BatchTestFixture.make()
        var request = BatchInsertRequest(entityName: "Product", objects: [["sku": .string("A")]])
        request.companion = { _, _ in throw Refused() }
        await #expect(throws: Refused.self) { try await fixture.store.execute(request, mergePolicy: .error) }
        #expect(try fixture.rows("SELECT count(*) FROM Product") == [[.integer(0)]])
    }

    @Test func aContextSaveCommitsItsCompanionOrNothing() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertProduct("A")
            #expect(throws: Refused.self) { try context.save(committingWith: { _ in throw Refused() }) }
            #expect(context.hasChanges)
            try context.save(committingWith: { connection in
                try connection.execute(Self.ledger)
                try connection.execute("INSERT INTO ferry_test_ledger VALUES ('saved')")
            })
            // Nothing left to save: the companion still commits, alone.
            try context.save(committingWith: { connection in
                try connection.execute("INSERT INTO ferry_test_ledger VALUES ('alone')")
            })
        }
        #expect(try fixture.integer("SELECT count(*) FROM Product") == 1)
        #expect(try fixture.rows("SELECT note FROM ferry_test_ledger") == [[.text("saved")], [.text("alone")]])
    }

    @Test func anUpsertOfValuesAlreadyStoredCountsNothingAndKeepsTheVersion() async throws {
        let fixture = try await BatchTestFixture.make()
        let rows: [[String: AttributeValue?]] = [
            ["sku": .string("A"), "name": .string("same")], ["sku": .string("B"), "name": .string("old")],
        ]
        _ = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Product", objects: rows), mergePolicy: .mergeByPropertyObjectTrump)

        let again = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Product",
                objects: [rows[0], ["sku": .string("B"), "name": .string("new")]]),
            mergePolicy: .mergeByPropertyObjectTrump)

        #expect(again.insertedCount == 0 && again.updatedCount == 1)
        #expect(
            try fixture.rows("SELECT sku, name, _opt FROM Product ORDER BY sku") == [
                [.text("A"), .text("same"), .integer(1)], [.text("B"), .text("new"), .integer(2)],
            ])
    }
}
