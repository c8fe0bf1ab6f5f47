import FerrySQLite
import FerryTestSupport
import Foundation
import Synchronization
import Testing

@testable import FerryStore

/// A bulk load into an empty table with its indexes deferred, and the build that ends it.
struct DeferredIndexTests {
    static func products(_ rows: [(sku: String, name: String)]) -> BatchInsertRequest {
        BatchInsertRequest(
            entityName: "Product", objects: rows.map { ["sku": .string($0.sku), "name": .string($0.name)] })
    }

    static func indexes(of table: String, in fixture: BatchTestFixture) throws -> [String] {
        try fixture.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '\(table)' ORDER BY name")
            .compactMap { $0[0].text }
    }

    @Test func anEmptyTableLoadsWithoutItsUniquenessIndexAndTheBuildKeepsTheFirstRowOfEachKey() async throws {
        let fixture = try await BatchTestFixture.make()
        let before = try Self.indexes(of: "Product", in: fixture)
        #expect(before.contains("Product_unique_sku"))

        #expect(try await fixture.store.deferIndexes(ofEntity: "Product", owner: "test load"))

        // Foreign-key and `_ent` indexes stay; the uniqueness index goes, and is recorded for the build.
        #expect(try Self.indexes(of: "Product", in: fixture) == before.filter { $0 != "Product_unique_sku" })
        #expect(try await fixture.store.deferredIndexes() == [DeferredIndexes(table: "Product", owner: "test load")])
        let load = Self.products([("A", "first A"), ("B", "first B"), ("A", "second A")])
        let loaded = try await fixture.store.execute(load, mergePolicy: .mergeByPropertyStoreTrump)
        #expect(loaded.insertedCount == 3)
        let more = Self.products([("C", "C"), ("B", "second B"), ("A", "third A")])
        _ = try await fixture.store.execute(more, mergePolicy: .mergeByPropertyStoreTrump)
        #expect(try fixture.count("Product") == 6)

        let reported = Mutex(-1)
        let removed = try await fixture.store.buildDeferredIndexes(ofTable: "Product") { _, removed in
            reported.withLock { $0 = removed }
        }

        #expect(removed == 3 && reported.withLock { $0 } == 3)
        // The first row of each key is kept, as insert-or-ignore would have.
        #expect(
            try fixture.rows("SELECT sku, name FROM Product ORDER BY _pk") == [
                [.text("A"), .text("first A")], [.text("B"), .text("first B")], [.text("C"), .text("C")],
            ])
        #expect(try Self.indexes(of: "Product", in: fixture) == before)
        #expect(try await fixture.store.deferredIndexes().isEmpty)
        // The uniqueness index is back at work.
        let again = try await fixture.store.execute(
            Self.products([("A", "fourth A")]), mergePolicy: .mergeByPropertyStoreTrump)
        #expect(again.insertedCount == 0)
        #expect(try await fixture.store.buildDeferredIndexes(ofTable: "Product") == 0)
    }

    @Test func rowsWithoutAKeyAreNeverDuplicates() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "code", type: .string),
                    AttributeDescription(name: "name", type: .string),
                ],
                uniquenessConstraints: [["code"]])
        ])
        let store = try await PersistentStore.open(
            PersistentStoreDescription(path: folder.appendingPathComponent("items.sqlite").path), model: model)
        #expect(try await store.deferIndexes(ofEntity: "Item", owner: "test"))
        let rows: [(String?, String)] = [("A", "a"), (nil, "x"), ("A", "again"), (nil, "y")]
        _ = try await store.execute(
            BatchInsertRequest(
                entityName: "Item",
                objects: rows.map { ["code": $0.0.map(AttributeValue.string), "name": .string($0.1)] }),
            mergePolicy: .mergeByPropertyStoreTrump)

        #expect(try await store.buildDeferredIndexes(ofTable: "Item") == 1)

        let names = try Connection(path: store.description.sqlitePath, mode: .readOnly).prepare(
            "SELECT name FROM Item ORDER BY _pk"
        )
        .fetchAll().compactMap { $0[0].text }
        #expect(names == ["a", "x", "y"])
    }

    @Test func aTableWithRowsOrAStoreThatRecordsHistoryKeepsItsIndexes() async throws {
        let fixture = try await BatchTestFixture.make()
        _ = try await fixture.store.execute(Self.products([("A", "a")]), mergePolicy: .error)
        #expect(try await fixture.store.deferIndexes(ofEntity: "Product", owner: "test") == false)
        #expect(try Self.indexes(of: "Product", in: fixture).contains("Product_unique_sku"))

        var description = PersistentStoreDescription(path: fixture.folder.appendingPathComponent("history.sqlite").path)
        description.recordsHistory = true
        let recording = try await PersistentStore.open(description, model: BatchTestFixture.model)
        #expect(try await recording.deferIndexes(ofEntity: "Product", owner: "test") == false)
        #expect(try await recording.deferredIndexes().isEmpty)
    }

    @Test func deferredIndexesOutliveTheProcessThatDeferredThemUntilTheyAreBuilt() async throws {
        let fixture = try await BatchTestFixture.make()
        #expect(try await fixture.store.deferIndexes(ofEntity: "Category", owner: "killed run"))
        try fixture.seed("INSERT INTO Category (_ent, name) VALUES ({Category}, 'Tools'), ({Category}, 'Tools')")

        // Another opening of the file (as after a crash) finds the record and finishes the job.
        let reopened = try await PersistentStore.open(
            PersistentStoreDescription(path: fixture.path), model: BatchTestFixture.model)
        #expect(try await reopened.deferredIndexes() == [DeferredIndexes(table: "Category", owner: "killed run")])
        #expect(try await reopened.buildDeferredIndexes(ofTable: "Category") == 1)
        #expect(try fixture.count("Category") == 1)
        #expect(try Self.indexes(of: "Category", in: fixture).contains("Category_unique_name"))
    }

    @Test func theBuildRemovesTheBlobFilesOnlyTheDeletedRowsReferredTo() async throws {
        let fixture = try await BlobStorageFixture()
        let store = fixture.container.persistentStore
        let kept = BlobStorageFixture.bytes(4096, seed: 1)
        let dropped = BlobStorageFixture.bytes(4096, seed: 2)
        #expect(try await store.deferIndexes(ofEntity: "Album", owner: "test"))
        _ = try await store.execute(
            BatchInsertRequest(
                entityName: "Album",
                objects: [
                    ["name": .string("Summer"), "cover": .binary(kept)],
                    ["name": .string("Summer"), "cover": .binary(dropped)],
                ]), mergePolicy: .mergeByPropertyStoreTrump)
        #expect(fixture.blobFiles().count == 2)

        #expect(try await store.buildDeferredIndexes(ofTable: "Album") == 1)

        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: kept)])
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: kept): 1])
        #expect(try fixture.danglingReferences().isEmpty)
    }
}
