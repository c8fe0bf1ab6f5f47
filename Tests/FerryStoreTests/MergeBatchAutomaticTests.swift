import Foundation
import Testing

@testable import FerryStore

/// `automaticallyMergesBatchChanges`: batch requests run on the store reach the contexts that opted in (through
/// the container's setting or their own) before the request returns, and no other context.
struct MergeBatchAutomaticTests {
    @Test func aContextThatOptedInHasMergedABatchUpdateWhenTheRequestReturns() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let merging = fixture.context()
        merging.automaticallyMergesBatchChanges = true
        let stale = fixture.context()
        let inMerging = merging.performAndWait {
            let sencha = merging.object(with: ids.sencha)
            sencha["name"] = "kept"
            return sencha
        }
        let inStale = stale.performAndWait {
            let sencha = stale.object(with: ids.sencha)
            #expect(sencha["price"] == Decimal(5))
            return sencha
        }

        _ = try await fixture.container.persistentStore.execute(
            BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["price": 50]))

        try merging.performAndWait {
            #expect(inMerging["price"] == Decimal(50))
            #expect(inMerging["name"] == "kept")
            try merging.save()
        }
        stale.performAndWait { #expect(inStale["price"] == Decimal(5)) }
    }

    @Test func aContextThatOptedInForgetsObjectsABatchDeleteRemoved() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let context = fixture.context()
        context.automaticallyMergesBatchChanges = true
        let (tea, matcha) = context.performAndWait {
            let tea = context.object(with: ids.tea)
            _ = tea.objectIDs(forKey: "products")
            return (tea, context.object(with: ids.matcha))
        }

        var request = FetchRequest(entityName: "Product")
        request.predicate = try FetchPredicate(format: "price > 6")
        _ = try await fixture.container.persistentStore.execute(BatchDeleteRequest(fetchRequest: request))

        context.performAndWait {
            #expect(context.registeredObject(for: ids.matcha) == nil)
            #expect(matcha.managedObjectContext == nil)
            #expect(tea.objectIDs(forKey: "products") == [ids.sencha])
        }
    }

    @Test func theContainerSettingTurnsItOnForEveryContextThatDidNotChoose() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let view = fixture.container.viewContext
        let child = view.newChildContext()
        let optedOut = fixture.context()
        optedOut.automaticallyMergesBatchChanges = false
        #expect(!view.automaticallyMergesBatchChanges)
        fixture.container.automaticallyMergesBatchChanges = true
        #expect(view.automaticallyMergesBatchChanges && child.automaticallyMergesBatchChanges)
        #expect(!optedOut.automaticallyMergesBatchChanges)
        let inView = view.performAndWait { view.object(with: ids.assam).willAccess() }
        let inChild = child.performAndWait { child.object(with: ids.assam).willAccess() }
        let inOptedOut = optedOut.performAndWait { optedOut.object(with: ids.assam).willAccess() }

        _ = try await fixture.container.persistentStore.execute(
            BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["name": .constant(.string("new"))]))

        view.performAndWait { #expect(inView["name"] == "new") }
        child.performAndWait { #expect(inChild["name"] == "new") }
        optedOut.performAndWait { #expect(inOptedOut["name"] == "Assam") }
    }

    @Test func batchInsertsReachTheStoreStreamAndTheirUpsertsRefreshOptedInContexts() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        fixture.container.automaticallyMergesBatchChanges = true
        let context = fixture.context()
        let assam = context.performAndWait { context.object(with: ids.assam).willAccess() }
        let store = fixture.container.persistentStore
        var posted = store.batchChanges.makeAsyncIterator()

        var request = BatchInsertRequest(
            entityName: "Product", columns: ["sku", "name"],
            rows: [[.string("T-3"), .string("Assam 2")], [.string("T-9"), nil]])
        request.transactionAuthor = "importer"
        let result = try await store.execute(request, mergePolicy: .mergeByPropertyObjectTrump)

        #expect(Set(result.changes.updatedObjectIDs) == [ids.assam])
        #expect(result.changes.insertedObjectIDs.count == 1)
        context.performAndWait { #expect(assam["name"] == "Assam 2") }
        let changes = try #require(await posted.next())
        #expect(changes == result.changes)
        #expect(changes.transactionAuthor == "importer")
    }
}

extension ManagedObject {
    /// Loads the object's values (when a fault) and returns it.
    fileprivate func willAccess() -> ManagedObject {
        _ = value(forKey: "name")
        return self
    }
}
