import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// The payload merges take: ``ObjectIDSet``'s runs, and the ``RemoteChanges`` each batch request reports whatever
/// its result type.
struct MergeBatchPayloadTests {
    private let store = "S"

    private func id(_ entity: String, _ key: Int64, store: String = "S") -> ObjectID {
        ObjectID(entityName: entity, primaryKey: key, storeIdentifier: store)
    }

    @Test func consecutiveKeysInAnyOrderBecomeRunsThatAnswerContains() {
        let keys: [Int64] = [7, 3, 4, 5, 1, 5, 10, 9, 8]
        let set = ObjectIDSet(keys.map { id("Product", $0) } + [id("Tag", 4), ObjectID.temporary(entityName: "Tag")])

        #expect(set.count == 9)  // 1, 3…5, 7…10 and Tag 4; the repeated 5 and the temporary ID do not count
        #expect(set.runCount == 4)
        for key in Int64(0)...11 {
            #expect(set.contains(id("Product", key)) == [1, 3, 4, 5, 7, 8, 9, 10].contains(key))
        }
        #expect(set.contains(id("Tag", 4)) && !set.contains(id("Tag", 5)))
        #expect(!set.contains(id("Product", 4, store: "other")))
        #expect(!set.contains(ObjectID.temporary(entityName: "Product")))
        #expect(Array(set).map(\.primaryKey) == [1, 3, 4, 5, 7, 8, 9, 10, 4])
        #expect(Array(set).last?.entityName == "Tag")
    }

    @Test func aMillionKeysInOrderAreOneRun() {
        var builder = ObjectIDSetBuilder(storeIdentifier: store, entityNames: [1: "Product"])
        for key in Int64(1)...1_000_000 { builder.append(key, ent: 1) }
        let set = builder.build()

        #expect(set.count == 1_000_000 && set.runCount == 1)
        #expect(set.contains(id("Product", 1)) && set.contains(id("Product", 1_000_000)))
        #expect(!set.contains(id("Product", 1_000_001)) && !set.contains(id("Product", 0)))
    }

    @Test func anEmptySetHoldsNothing() {
        let set = ObjectIDSet()
        #expect(set.isEmpty && set.count == 0 && Array(set).isEmpty)
        #expect(!set.contains(id("Product", 1)))
        #expect(RemoteChanges().isEmpty)
    }

    @Test func aBatchUpdateReportsItsRowsWhateverTheResultType() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            """
            INSERT INTO Vehicle (_pk, _ent, vin, wheels) VALUES (1, {Vehicle}, 'A', 4), (2, {Truck}, 'B', 6),
                (3, {Vehicle}, 'C', 4), (5, {Truck}, 'D', 10);
            """)

        let result = try await fixture.store.execute(
            BatchUpdateRequest(entityName: "Vehicle", propertiesToUpdate: ["wheels": .keyPath("wheels") + 1]))

        #expect(result.result == .status(true))
        #expect(
            Array(result.changes.updatedObjectIDs) == [
                fixture.id("Truck", 2), fixture.id("Truck", 5), fixture.id("Vehicle", 1), fixture.id("Vehicle", 3),
            ])
        #expect(result.changes.insertedObjectIDs.isEmpty && result.changes.deletedObjectIDs.isEmpty)
    }

    @Test func aBatchDeleteReportsCascadedRowsAsDeletedAndNullifiedRowsAsUpdated() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            """
            INSERT INTO Category (_pk, _ent, name) VALUES (1, {Category}, 'Coffee');
            INSERT INTO Brand (_pk, _ent, name) VALUES (1, {Brand}, 'Acme');
            INSERT INTO Product (_pk, _ent, sku, category, brand) VALUES (1, {Product}, 'A', 1, 1),
                (2, {Product}, 'B', NULL, 1);
            INSERT INTO Review (_pk, _ent, text, product) VALUES (1, {Review}, 'good', 1);
            """)

        let deleteCategory = try await fixture.store.execute(
            BatchDeleteRequest(objectIDs: [fixture.id("Category", 1)], resultType: .count))
        #expect(
            Set(deleteCategory.changes.deletedObjectIDs) == [
                fixture.id("Category", 1), fixture.id("Product", 1), fixture.id("Review", 1),
            ])
        #expect(deleteCategory.changes.updatedObjectIDs.isEmpty)

        let deleteBrand = try await fixture.store.execute(BatchDeleteRequest(objectIDs: [fixture.id("Brand", 1)]))
        #expect(Array(deleteBrand.changes.deletedObjectIDs) == [fixture.id("Brand", 1)])
        #expect(Array(deleteBrand.changes.updatedObjectIDs) == [fixture.id("Product", 2)])
    }

    @Test func aBatchInsertReportsNewRowsAsInsertedAndUpsertedRowsAsUpdated() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed("INSERT INTO Category (_pk, _ent, name, rank) VALUES (1, {Category}, 'Tea', 1);")

        let result = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Category", columns: ["name", "rank"],
                rows: [[.string("Tea"), .integer(2)], [.string("Coffee"), .integer(3)], [.string("Cocoa"), nil]],
                resultType: .count),
            mergePolicy: .mergeByPropertyObjectTrump)

        #expect(Array(result.changes.updatedObjectIDs) == [fixture.id("Category", 1)])
        #expect(result.changes.insertedObjectIDs.count == 2)
        #expect(result.changes.insertedObjectIDs.runCount == 1)
        #expect(!result.changes.insertedObjectIDs.contains(fixture.id("Category", 1)))
    }
}
