import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)` after batch requests, on a real store file:
/// what registered objects, faults, unregistered objects and child contexts see.
struct MergeBatchTests {
    @Test func aBatchUpdateMergedIntoAContextRefreshesARegisteredObjectAndKeepsItsUnsavedEdit() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let context = fixture.context()
        let (edited, clean) = context.performAndWait {
            let edited = context.object(with: ids.sencha)
            edited["name"] = "Sencha (edited)"
            let clean = context.object(with: ids.matcha)
            #expect(clean["price"] == Decimal(7))
            return (edited, clean)
        }

        let result = try await fixture.container.persistentStore.execute(
            BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["price": .keyPath("price") * 2]))
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])

        try context.performAndWait {
            #expect(edited["price"] == Decimal(10))
            #expect(edited["name"] == "Sencha (edited)")
            #expect(edited.isUpdated && edited.changedKeys == ["name"])
            #expect(clean["price"] == Decimal(14))
            #expect(!clean.hasChanges)
            #expect(context.updatedObjects.map(\.objectID) == [ids.sencha])
            // The snapshot moved to the new row version: the save meets no optimistic-locking conflict.
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT name, price FROM Product WHERE sku = 'T-1'") == [
                [.text("Sencha (edited)"), .text("10")]
            ])
    }

    @Test func aBatchDeleteMergedIntoAContextRemovesTheObjectAndItsIDFromLoadedToManys() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let context = fixture.context()
        let (tea, sencha) = context.performAndWait {
            let tea = context.object(with: ids.tea)
            #expect(Set(tea.objectIDs(forKey: "products")) == [ids.sencha, ids.matcha, ids.assam])
            return (tea, context.object(with: ids.sencha))
        }

        let result = try await fixture.container.persistentStore.execute(
            BatchDeleteRequest(objectIDs: [ids.sencha, ids.matcha]))
        #expect(Set(result.changes.deletedObjectIDs) == [ids.sencha, ids.matcha])
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])

        context.performAndWait {
            #expect(context.registeredObject(for: ids.sencha) == nil)
            #expect(sencha.managedObjectContext == nil)
            // Matcha was never registered, yet its ID leaves the loaded relationship too.
            #expect(tea.objectIDs(forKey: "products") == [ids.assam])
            #expect(!context.hasChanges)
        }
    }

    @Test func aNullifiedRelationshipIsReloadedFromTheStore() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let context = fixture.context()
        let sencha = context.performAndWait {
            let sencha = context.object(with: ids.sencha)
            #expect(sencha.objectID(forKey: "category") == ids.tea)
            return sencha
        }

        // Category.products is nullify: the products survive, their `category` is cleared in SQL.
        let result = try await fixture.container.persistentStore.execute(BatchDeleteRequest(objectIDs: [ids.tea]))
        #expect(Set(result.changes.updatedObjectIDs) == [ids.sencha, ids.matcha, ids.assam])
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])

        context.performAndWait {
            #expect(sencha.objectID(forKey: "category") == nil)
            #expect(!sencha.hasChanges)
        }
    }

    @Test func unregisteredObjectsAreLeftAloneAndFaultsStayFaults() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let context = fixture.context()
        let fault = try context.performAndWait {
            // A fault from a fetch, backed by the row the fetch read.
            let request = FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: "sku == 'T-1'"))
            let fetched = Array(try context.fetch(request))
            #expect(fetched.count == 1 && fetched[0].isFault)
            #expect(context.registeredObjects.count == 1)
            return fetched[0]
        }

        let result = try await fixture.container.persistentStore.execute(
            BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["name": .constant(.string("renamed"))]))
        #expect(result.changes.updatedObjectIDs.count == 3)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])

        context.performAndWait {
            #expect(context.registeredObjects.count == 1)
            #expect(context.registeredObject(for: ids.matcha) == nil)
            #expect(context.registeredObject(for: ids.assam) == nil)
            #expect(fault.isFault)
            // The row the fetch cached is stale: the fault reads the new one when it fires.
            #expect(fault["name"] == "renamed")
        }
    }

    @Test func aMergeIntoAChildContextReloadsThroughItsParentWhichMergesFirst() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let parent = fixture.context()
        let child = parent.newChildContext(name: "editor")
        let inParent = parent.performAndWait {
            let sencha = parent.object(with: ids.sencha)
            #expect(sencha["price"] == Decimal(5))
            return sencha
        }
        let (inChild, assam) = child.performAndWait {
            let sencha = child.object(with: ids.sencha)
            sencha["name"] = "Sencha (child)"
            let assam = child.object(with: ids.assam)
            #expect(assam["price"] == Decimal(9))
            return (sencha, assam)
        }

        let result = try await fixture.container.persistentStore.execute(
            BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["price": .keyPath("price") + 1]))
        // The child is listed first; the parent still merges before it.
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [child, parent])

        parent.performAndWait { #expect(inParent["price"] == Decimal(6)) }
        try child.performAndWait {
            #expect(inChild["price"] == Decimal(6))
            #expect(inChild["name"] == "Sencha (child)")
            // Not registered in the parent: read from the store.
            #expect(assam["price"] == Decimal(10))
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        #expect(
            try fixture.rows("SELECT name, price FROM Product WHERE sku = 'T-1'") == [
                [.text("Sencha (child)"), .text("6")]
            ])
    }

    @Test func aRemoteUpdateOfAnObjectDeletedInTheContextLeavesTheDeletionToBeSaved() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let context = fixture.context()
        let assam = context.performAndWait {
            let assam = context.object(with: ids.assam)
            context.delete(assam)
            return assam
        }

        let result = try await fixture.container.persistentStore.execute(
            BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["price": 1]))
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])

        try context.performAndWait {
            #expect(assam.isDeleted)
            try context.save()
        }
        #expect(try fixture.integer("SELECT COUNT(*) FROM Product WHERE sku = 'T-3'") == 0)
    }

    @Test func objectIDsFromElsewhereMergeAsInCoreData() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let context = fixture.context()
        let sencha = context.performAndWait {
            let sencha = context.object(with: ids.sencha)
            #expect(sencha["name"] == "Sencha")
            return sencha
        }
        try fixture.container.persistentStore.writer.sync { connection in
            try connection.execute("UPDATE Product SET name = 'outside', _opt = _opt + 1 WHERE sku = 'T-1'")
        }

        let temporary = ObjectID.temporary(entityName: "Product")
        ManagedObjectContext.mergeChanges(
            fromRemoteContextSave: RemoteChanges(updated: [ids.sencha, temporary]), into: [context, context])

        context.performAndWait { #expect(sencha["name"] == "outside") }
    }
}

extension ContextFixture {
    /// The IDs ``seedMergeCatalog()`` saved.
    struct MergeCatalog {
        var tea: ObjectID
        var sencha: ObjectID
        var matcha: ObjectID
        var assam: ObjectID
    }

    /// Saves the category Tea with products T-1 Sencha (price 5), T-2 Matcha (7) and T-3 Assam (9).
    func seedMergeCatalog() throws -> MergeCatalog {
        let context = self.context()
        return try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 1)
            let products = [("T-1", "Sencha", 5), ("T-2", "Matcha", 7), ("T-3", "Assam", 9)].map {
                context.insertProduct($0.0, name: $0.1, price: Decimal($0.2), category: tea)
            }
            try context.save()
            return MergeCatalog(
                tea: tea.objectID, sencha: products[0].objectID, matcha: products[1].objectID,
                assam: products[2].objectID)
        }
    }
}

/// The same rule for did-save merges: a registered fault is not loaded, but loses the row a fetch cached for it.
struct MergeDidSaveFaultTests {
    @Test func aDidSaveMergeDropsTheRowAFetchCachedForAFault() async throws {
        let fixture = try await ContextFixture()
        let ids = try fixture.seedMergeCatalog()
        let reader = fixture.context()
        let writer = fixture.context()
        let fault = try reader.performAndWait {
            let fetched = Array(try reader.fetch(FetchRequest(entityName: "Category")))
            #expect(fetched.count == 1 && fetched[0].isFault)
            return fetched[0]
        }
        var saves = writer.didSaveNotifications.makeAsyncIterator()
        try writer.performAndWait {
            writer.object(with: ids.tea)["rank"] = 8
            try writer.save()
        }
        let saved = try #require(await saves.next())

        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: saved)
            #expect(fault.isFault)
            #expect(fault["rank"] == 8)
        }
    }
}
