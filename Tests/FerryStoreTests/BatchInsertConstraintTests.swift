import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Batch insert and uniqueness constraints, per merge policy (REFERENCE.md §1.6 and Ferry's rules).
struct BatchInsertConstraintTests {
    /// A stored product A-1 (`_pk` 1) with every attribute the upserts below might touch.
    private func storeWithProductA1() async throws -> BatchTestFixture {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            """
            INSERT INTO Product (_pk, _ent, _opt, sku, name, price, quantity, isFavorite, active)
            VALUES (1, {Product}, 1, 'A-1', 'Old', '1', 5, 1, 1)
            """)
        return fixture
    }

    private let incoming: [[String: AttributeValue?]] = [
        ["sku": .string("A-1"), "name": .string("New"), "price": .decimal(2)],
        ["sku": .string("B-1"), "name": .string("Brand new")],
    ]

    @Test(arguments: [MergePolicy.mergeByPropertyStoreTrump, .rollback])
    func storeTrumpKeepsTheStoredRowAndInsertsTheRest(policy: MergePolicy) async throws {
        let fixture = try await storeWithProductA1()

        let result = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Product", objects: incoming, resultType: .objectIDs), mergePolicy: policy)

        #expect(result.insertedCount == 1 && result.updatedCount == 0)
        #expect(
            try fixture.rows("SELECT _pk, name, price, _opt FROM Product WHERE sku = 'A-1'") == [
                [.integer(1), .text("Old"), .text("1"), .integer(1)]
            ])
        let newKey = try fixture.value("SELECT _pk FROM Product WHERE sku = 'B-1'").integer ?? -1
        #expect(result.objectIDs == [fixture.id("Product", newKey)])
    }

    @Test func objectTrumpUpdatesOnlyTheGivenAttributesAndBumpsTheVersion() async throws {
        let fixture = try await storeWithProductA1()

        let result = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Product", objects: [["sku": .string("A-1"), "price": .decimal(2)]],
                resultType: .objectIDs),
            mergePolicy: .mergeByPropertyObjectTrump)

        #expect(result.insertedCount == 0 && result.updatedCount == 1)
        #expect(result.objectIDs == [fixture.id("Product", 1)])
        // name, quantity and isFavorite keep their stored values: they are not reset to the defaults (0, false).
        #expect(
            try fixture.rows("SELECT _pk, name, price, quantity, isFavorite, active, _opt FROM Product") == [
                [.integer(1), .text("Old"), .text("2"), .integer(5), .integer(1), .integer(1), .integer(2)]
            ])
    }

    @Test func objectTrumpInsertsNewRowsBesideTheUpsertedOnes() async throws {
        let fixture = try await storeWithProductA1()

        let result = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Product", objects: incoming, resultType: .count),
            mergePolicy: .mergeByPropertyObjectTrump)

        #expect(result.count == 2)
        #expect(result.insertedCount == 1 && result.updatedCount == 1)
        #expect(
            try fixture.rows("SELECT sku, name, _opt FROM Product ORDER BY sku") == [
                [.text("A-1"), .text("New"), .integer(2)], [.text("B-1"), .text("Brand new"), .integer(1)],
            ])
    }

    @Test func theErrorPolicyFailsOnACollisionAndWritesNothing() async throws {
        let fixture = try await storeWithProductA1()
        let request = BatchInsertRequest(
            entityName: "Product", objects: [["sku": .string("Z-9")], ["sku": .string("A-1"), "name": .string("X")]])

        await #expect {
            try await fixture.store.execute(request, mergePolicy: .error)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .constraintConflict && error.code.coreDataCode == 133021
                && error.message.contains("batch insert into Product")
                && error.message.contains("the uniqueness constraint (sku) of Product")
                && !error.message.contains("A-1")
        }
        #expect(try fixture.rows("SELECT sku, name, _opt FROM Product") == [[.text("A-1"), .text("Old"), .integer(1)]])
    }

    @Test func duplicatesInOneRequestKeepTheLastRowUnderObjectTrump() async throws {
        let fixture = try await BatchTestFixture.make()
        let rows: [[String: AttributeValue?]] = [
            ["sku": .string("D"), "name": .string("first"), "quantity": .integer(1)],
            ["sku": .string("D"), "name": .string("second")],
        ]

        let result = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Product", objects: rows, resultType: .objectIDs),
            mergePolicy: .mergeByPropertyObjectTrump)

        #expect(result.insertedCount == 1 && result.updatedCount == 1)
        #expect(result.objectIDs?.count == 1)
        #expect(
            try fixture.rows("SELECT name, quantity, _opt FROM Product") == [
                [.text("second"), .integer(1), .integer(2)]
            ])
    }

    @Test func duplicatesInOneRequestKeepTheFirstRowUnderStoreTrump() async throws {
        let fixture = try await BatchTestFixture.make()
        let rows: [[String: AttributeValue?]] = [
            ["sku": .string("D"), "name": .string("first")], ["sku": .string("D"), "name": .string("second")],
        ]

        let result = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Product", objects: rows, resultType: .count),
            mergePolicy: .mergeByPropertyStoreTrump)

        #expect(result.count == 1)
        #expect(try fixture.rows("SELECT name, _opt FROM Product") == [[.text("first"), .integer(1)]])
    }

    @Test func duplicatesInOneRequestFailItUnderTheErrorPolicy() async throws {
        let fixture = try await BatchTestFixture.make()
        let request = BatchInsertRequest(
            entityName: "Product", columns: ["sku"], rows: [[.string("D")], [.string("E")], [.string("D")]])

        await #expect {
            try await fixture.store.execute(request, mergePolicy: .error)
        } throws: { error in
            (error as? StoreError)?.code == .constraintConflict
        }
        #expect(try fixture.count("Product") == 0)
    }

    @Test func aCompoundConstraintCollidesOnlyOnTheWholeKey() async throws {
        let fixture = try await BatchTestFixture.make()
        let columns = ["storeCode", "sku", "price", "stock"]
        _ = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Listing", columns: columns,
                rows: [
                    [.string("S1"), .string("A"), .double(1), .integer(10)],
                    [.string("S2"), .string("A"), .double(2), .integer(20)],
                    [.string("S1"), .string("B"), .double(3), .integer(30)],
                ]),
            mergePolicy: .error)
        #expect(try fixture.count("Listing") == 3)

        let upsert = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Listing", columns: ["storeCode", "sku", "price"],
                rows: [[.string("S1"), .string("A"), .double(5)], [.string("S2"), .string("B"), .double(6)]]),
            mergePolicy: .mergeByPropertyObjectTrump)
        #expect(upsert.insertedCount == 1 && upsert.updatedCount == 1)
        #expect(
            try fixture.rows("SELECT storeCode, sku, price, stock, _opt FROM Listing ORDER BY _pk") == [
                [.text("S1"), .text("A"), .real(5), .integer(10), .integer(2)],
                [.text("S2"), .text("A"), .real(2), .integer(20), .integer(1)],
                [.text("S1"), .text("B"), .real(3), .integer(30), .integer(1)],
                [.text("S2"), .text("B"), .real(6), .null, .integer(1)],
            ])

        await #expect {
            try await fixture.store.execute(
                BatchInsertRequest(
                    entityName: "Listing", columns: ["storeCode", "sku"],
                    rows: [[.string("S3"), .string("A")], [.string("S1"), .string("B")]]),
                mergePolicy: .error)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .constraintConflict && error.message.contains("(storeCode, sku) of Listing")
        }
        #expect(try fixture.count("Listing", where: "storeCode = 'S3'") == 0)
    }

    @Test func aSubEntityRowCollidesWithItsParentsConstraint() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed("INSERT INTO Vehicle (_pk, _ent, vin, wheels) VALUES (1, {Vehicle}, 'V1', 4)")

        let result = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Truck", objects: [["vin": .string("V1"), "wheels": .integer(6)]], resultType: .objectIDs),
            mergePolicy: .mergeByPropertyObjectTrump)

        // The stored row is a Vehicle and stays one: the object ID names its own entity.
        #expect(result.objectIDs == [fixture.id("Vehicle", 1)])
        #expect(
            try fixture.rows("SELECT _ent, wheels, _opt FROM Vehicle") == [
                [.integer(Int64(fixture.ent("Vehicle"))), .integer(6), .integer(2)]
            ])
    }
}
