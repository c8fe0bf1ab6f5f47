import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Batch delete on a real store file: by predicate and by IDs, with cascade, nullify, deny and join tables.
struct BatchDeleteTests {
    /// Coffee (1) holds products 1 and 2; product 1 has review 1 with comments 1 and 2, and tags 1 and 2; Tea (2)
    /// holds product 3, which has review 2 (comment 3) and tag 1. Brand 1 makes products 1 and 3.
    private func catalog() async throws -> BatchTestFixture {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            """
            INSERT INTO Category (_pk, _ent, name) VALUES (1, {Category}, 'Coffee'), (2, {Category}, 'Tea');
            INSERT INTO Brand (_pk, _ent, name) VALUES (1, {Brand}, 'Acme');
            INSERT INTO Product (_pk, _ent, sku, price, category, brand) VALUES
                (1, {Product}, 'A-1', '3', 1, 1), (2, {Product}, 'A-2', '1', 1, NULL), (3, {Product}, 'B-1', '2', 2, 1);
            INSERT INTO Review (_pk, _ent, text, product) VALUES (1, {Review}, 'good', 1), (2, {Review}, 'ok', 3);
            INSERT INTO Comment (_pk, _ent, body, review) VALUES
                (1, {Comment}, 'yes', 1), (2, {Comment}, 'no', 1), (3, {Comment}, 'hm', 2);
            INSERT INTO Tag (_pk, _ent, label) VALUES (1, {Tag}, 'hot'), (2, {Tag}, 'new');
            INSERT INTO Product_tags (source, destination) VALUES (1, 1), (1, 2), (3, 1);
            """)
        return fixture
    }

    @Test func deletingByPredicateCascadesToChildrenAndGrandchildren() async throws {
        let fixture = try await catalog()
        let request = BatchDeleteRequest(
            fetchRequest: FetchRequest(
                entityName: "Category", predicate: try FetchPredicate(format: "name == 'Coffee'")),
            resultType: .objectIDs)

        let result = try await fixture.store.execute(request)

        #expect(result.objectIDs == [fixture.id("Category", 1)])
        #expect(result.deletedCount == 1 && result.cascadedCount == 5)
        #expect(
            Set(result.cascadedObjectIDs) == [
                fixture.id("Product", 1), fixture.id("Product", 2), fixture.id("Review", 1),
                fixture.id("Comment", 1), fixture.id("Comment", 2),
            ])
        #expect(try fixture.rows("SELECT _pk FROM Category") == [[.integer(2)]])
        #expect(try fixture.rows("SELECT _pk FROM Product") == [[.integer(3)]])
        #expect(try fixture.rows("SELECT _pk FROM Review") == [[.integer(2)]])
        #expect(try fixture.rows("SELECT _pk FROM Comment") == [[.integer(3)]])
        // The deleted product's join rows go with it; the tags themselves stay (nullify).
        #expect(try fixture.rows("SELECT source, destination FROM Product_tags") == [[.integer(3), .integer(1)]])
        #expect(try fixture.count("Tag") == 2)
    }

    @Test func nullifyClearsTheForeignKeysOfSurvivorsAndBumpsTheirVersion() async throws {
        let fixture = try await catalog()

        let result = try await fixture.store.execute(
            BatchDeleteRequest(objectIDs: [fixture.id("Brand", 1)], resultType: .count))

        #expect(result.count == 1 && result.cascadedCount == 0)
        #expect(try fixture.count("Brand") == 0)
        #expect(
            try fixture.rows("SELECT _pk, brand, _opt FROM Product ORDER BY _pk") == [
                [.integer(1), .null, .integer(2)], [.integer(2), .null, .integer(1)],
                [.integer(3), .null, .integer(2)],
            ])
    }

    @Test func nullifyOnAManyToManyRemovesOnlyTheJoinRows() async throws {
        let fixture = try await catalog()

        _ = try await fixture.store.execute(BatchDeleteRequest(objectIDs: [fixture.id("Tag", 1)]))

        #expect(try fixture.rows("SELECT _pk FROM Tag") == [[.integer(2)]])
        #expect(try fixture.rows("SELECT source, destination FROM Product_tags") == [[.integer(1), .integer(2)]])
        #expect(try fixture.count("Product") == 3)
        #expect(try fixture.count("Product", where: "_opt <> 1") == 0)
    }

    @Test func nullifyOnAOneToOneClearsTheOtherSidesKey() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            """
            INSERT INTO Person (_pk, _ent, name, passport) VALUES (1, {Person}, 'Ada', 1), (2, {Person}, 'Alan', 2);
            INSERT INTO Passport (_pk, _ent, number, holder) VALUES
                (1, {Passport}, 'P-1', 1), (2, {Passport}, 'P-2', 2);
            """)

        _ = try await fixture.store.execute(BatchDeleteRequest(objectIDs: [fixture.id("Person", 1)]))

        #expect(try fixture.rows("SELECT _pk, passport FROM Person") == [[.integer(2), .integer(2)]])
        #expect(
            try fixture.rows("SELECT _pk, holder, _opt FROM Passport ORDER BY _pk") == [
                [.integer(1), .null, .integer(2)], [.integer(2), .integer(2), .integer(1)],
            ])
    }

    @Test func aDenyRuleThatWouldBeBrokenRefusesTheWholeRequest() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            """
            INSERT INTO Supplier (_pk, _ent, name) VALUES (1, {Supplier}, 'Bound'), (2, {Supplier}, 'Free');
            INSERT INTO Contract (_pk, _ent, number, supplier) VALUES (1, {Contract}, 'K-1', 1);
            """)

        await #expect {
            try await fixture.store.execute(
                BatchDeleteRequest(objectIDs: [fixture.id("Supplier", 2), fixture.id("Supplier", 1)]))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .batchDeleteDenied && error.message.contains("Supplier.contracts")
        }
        #expect(try fixture.count("Supplier") == 2)
        #expect(try fixture.count("Contract") == 1)

        // A departure from Core Data, whose batch delete refuses any request meeting a Deny rule: a supplier whose
        // contracts are empty may go.
        let free = try await fixture.store.execute(
            BatchDeleteRequest(objectIDs: [fixture.id("Supplier", 2)], resultType: .count))
        #expect(free.count == 1)
        #expect(try fixture.rows("SELECT _pk FROM Supplier") == [[.integer(1)]])
    }

    @Test func nullifyingANonOptionalToOneRefusesTheRequest() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            """
            INSERT INTO Warehouse (_pk, _ent, name) VALUES (1, {Warehouse}, 'North');
            INSERT INTO Bin (_pk, _ent, label, warehouse) VALUES (1, {Bin}, 'B1', 1);
            """)

        await #expect {
            try await fixture.store.execute(BatchDeleteRequest(objectIDs: [fixture.id("Warehouse", 1)]))
        } throws: { error in
            guard let error = error as? ValidationError else { return false }
            return error.code == .missingMandatoryProperty && error.entity == "Bin" && error.key == "warehouse"
        }
        #expect(try fixture.count("Warehouse") == 1)
        #expect(try fixture.rows("SELECT warehouse, _opt FROM Bin") == [[.integer(1), .integer(1)]])
    }

    @Test func aFetchRequestsOrderAndLimitChooseTheRowsDeleted() async throws {
        let fixture = try await catalog()
        var cheapest = FetchRequest(
            entityName: "Product", sortDescriptors: [FetchSortDescriptor(key: "price", ascending: true)])
        cheapest.fetchLimit = 2

        let result = try await fixture.store.execute(BatchDeleteRequest(fetchRequest: cheapest, resultType: .objectIDs))

        #expect(result.objectIDs == [fixture.id("Product", 2), fixture.id("Product", 3)])
        #expect(try fixture.rows("SELECT _pk FROM Product") == [[.integer(1)]])
        #expect(try fixture.rows("SELECT _pk FROM Review") == [[.integer(1)]])
        #expect(try fixture.rows("SELECT _pk FROM Comment ORDER BY _pk") == [[.integer(1)], [.integer(2)]])
    }

    @Test func objectIDsAreCheckedAndMissingRowsSkipped() async throws {
        let fixture = try await catalog()
        await #expect {
            try await fixture.store.execute(
                BatchDeleteRequest(objectIDs: [fixture.id("Tag", 1), fixture.id("Brand", 1)]))
        } throws: { error in
            (error as? StoreError)?.code == .invalidBatchRequest
        }
        await #expect {
            try await fixture.store.execute(
                BatchDeleteRequest(objectIDs: [ObjectID(entityName: "Tag", primaryKey: 1, storeIdentifier: "other")]))
        } throws: { error in
            (error as? StoreError)?.code == .invalidBatchRequest
        }
        #expect(try fixture.count("Tag") == 2 && fixture.count("Brand") == 1)

        let result = try await fixture.store.execute(
            BatchDeleteRequest(objectIDs: [fixture.id("Tag", 2), fixture.id("Tag", 99)], resultType: .objectIDs))
        #expect(result.objectIDs == [fixture.id("Tag", 2)])
        #expect(try fixture.rows("SELECT _pk FROM Tag") == [[.integer(1)]])
    }
}
