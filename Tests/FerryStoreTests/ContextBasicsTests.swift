import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Contexts: insert, save, fetch back, uniquing, object IDs, rollback, reset, refresh.
struct ContextBasicsTests {
    @Test func insertedObjectsAreSavedAsReadableRowsAndGetPermanentIDs() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        let (temporary, permanent) = try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 2)
            let product = context.insertProduct("T-1", name: "Sencha", price: Decimal(string: "4.50"), category: tea)
            let temporary = product.objectID
            #expect(temporary.isTemporaryID)
            #expect(context.hasChanges)
            #expect(context.insertedObjects.count == 2)
            try context.save()
            #expect(!context.hasChanges)
            #expect(!product.isInserted)
            return (temporary, product.objectID)
        }
        #expect(!permanent.isTemporaryID)
        #expect(temporary != permanent)
        let rows = try fixture.rows(
            "SELECT p._pk, p.sku, p.name, p.price, c.name, p._opt FROM Product p JOIN Category c ON c._pk = p.category")
        #expect(
            rows == [
                [
                    .integer(permanent.primaryKey), .text("T-1"), .text("Sencha"), .text("4.5"), .text("Tea"),
                    .integer(1),
                ]
            ])
    }

    @Test func aSecondContextFetchesTheSavedValues() async throws {
        let fixture = try await ContextFixture()
        let writer = fixture.context()
        try writer.performAndWait {
            let tea = writer.insertCategory("Tea")
            writer.insertProduct("T-1", name: "Sencha", price: 4, category: tea)
            writer.insertProduct("T-2", name: "Matcha", price: 12, category: tea)
            try writer.save()
        }
        let reader = fixture.container.viewContext
        try reader.performAndWait {
            var request = FetchRequest(entityName: "Product", sortDescriptors: [FetchSortDescriptor(key: "sku")])
            request.predicate = try FetchPredicate(format: "category.name ==[c] %@", "tea")
            let products = try reader.fetch(request)
            #expect(products.count == 2)
            #expect(products.map { $0["name"] as String? } == ["Sencha", "Matcha"])
            #expect(products[1]["price"] == Decimal(12))
            let category = try #require(products[0].object(forKey: "category"))
            #expect(category["name"] == "Tea")
            #expect(Set(category.objectIDs(forKey: "products")) == Set(products.map(\.objectID)))
            // Uniquing: one object per row in a context.
            #expect(products[1].object(forKey: "category") === category)
            #expect(reader.object(with: products[0].objectID) === products[0])
        }
    }

    @Test func saveWithoutChangesWritesNothing() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Tea")
            try context.save()
            let tea = try #require(try context.all("Category", sortedBy: "name").first)
            tea["name"] = "Tea"  // the same value: no change
            #expect(!context.hasChanges)
            try context.save()
        }
        #expect(try fixture.integer("SELECT _opt FROM Category") == 1)
    }

    @Test func updatesWriteOnlyChangedValuesAndBumpTheVersion() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Tea", rank: 1)
            try context.save()
            context.reset()
            let tea = try #require(try context.all("Category", sortedBy: "name").first)
            tea["rank"] = 5
            #expect(tea.isUpdated)
            #expect(tea.changedKeys == ["rank"])
            #expect(tea.committedValues(forKeys: ["rank"])["rank"] == .some(.integer(1)))
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT name, rank, _opt FROM Category") == [[.text("Tea"), .integer(5), .integer(2)]])
    }

    @Test func rollbackDiscardsInsertsAndRestoresUpdates() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 1)
            try context.save()
            tea["rank"] = 9
            let coffee = context.insertCategory("Coffee")
            context.rollback()
            #expect(tea["rank"] == 1)
            #expect(!context.hasChanges)
            #expect(coffee.managedObjectContext == nil)
            try context.save()
        }
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 1)
    }

    @Test func resetForgetsEveryObjectAndRefreshReloads() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        let other = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 1)
            try context.save()
            let id = tea.objectID
            context.reset()
            #expect(tea.managedObjectContext == nil)
            #expect(context.registeredObject(for: id) == nil)
            let again = context.object(with: id)
            #expect(again.isFault)
            #expect(again["rank"] == 1)
            #expect(!again.isFault)

            try other.performAndWait {
                let copy = try other.existingObject(with: id)
                copy["rank"] = 7
                try other.save()
            }
            again["name"] = "Green tea"
            context.refresh(again, mergeChanges: true)
            #expect(again["rank"] == 7)
            #expect(again["name"] == "Green tea")
            #expect(again.isUpdated)
            context.refresh(again, mergeChanges: false)
            #expect(again["name"] == "Tea")
            #expect(!context.hasChanges)
        }
    }

    @Test func existingObjectFailsForAMissingRow() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        let store = fixture.container.persistentStore
        context.performAndWait {
            let missing = ObjectID(entityName: "Category", primaryKey: 42, storeIdentifier: store.identifier)
            #expect { try context.existingObject(with: missing) } throws: { error in
                (error as? StoreError)?.code == .objectNotFound
            }
        }
    }

    @Test func obtainPermanentIDsReservesKeysBeforeTheSave() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea")
            let product = context.insertProduct("T-1", category: tea)
            try context.obtainPermanentIDs(for: [tea, product])
            #expect(!tea.objectID.isTemporaryID)
            #expect(product.objectID(forKey: "category") == tea.objectID)
            let reserved = tea.objectID
            try context.save()
            #expect(tea.objectID == reserved)
        }
        #expect(try fixture.integer("SELECT category FROM Product") == 1)
    }

    @Test func didSaveNotificationsCarryTheObjectIDsAndMergeIntoAnotherContext() async throws {
        let fixture = try await ContextFixture()
        let writer = fixture.context()
        let reader = fixture.container.viewContext
        let teaID = try writer.performAndWait {
            let tea = writer.insertCategory("Tea", rank: 1)
            writer.insertCategory("Coffee")
            try writer.save()
            return tea.objectID
        }
        let (readerTea, coffeeID) = try reader.performAndWait { () -> (ManagedObject, ObjectID) in
            let all = try reader.all("Category", sortedBy: "name")
            return (all[1], all[0].objectID)
        }
        _ = readerTea
        let notifications = writer.didSaveNotifications
        try writer.performAndWait {
            let tea = writer.object(with: teaID)
            tea["rank"] = 3
            writer.delete(writer.object(with: coffeeID))
            try writer.save()
        }
        var iterator = notifications.makeAsyncIterator()
        let saved = try #require(await iterator.next())
        #expect(saved.updatedObjectIDs == [teaID])
        #expect(saved.deletedObjectIDs == [coffeeID])
        reader.performAndWait {
            let tea = reader.object(with: teaID)
            #expect(tea["rank"] == 1)  // not merged yet: the registered object keeps its values
            reader.mergeChanges(fromContextDidSave: saved)
            #expect(tea["rank"] == 3)
            #expect(reader.registeredObject(for: coffeeID) == nil)
        }
    }

    @Test func automaticMergesReachOtherRootContexts() async throws {
        let fixture = try await ContextFixture()
        let writer = fixture.context()
        let reader = fixture.container.viewContext
        reader.automaticallyMergesChangesFromParent = true
        let id = try writer.performAndWait {
            let tea = writer.insertCategory("Tea", rank: 1)
            try writer.save()
            return tea.objectID
        }
        let tea = reader.performAndWait {
            let tea = reader.object(with: id)
            #expect(tea["rank"] == 1)
            return tea
        }
        try writer.performAndWait {
            writer.object(with: id)["rank"] = 4
            try writer.save()
        }
        var merged = false
        for _ in 0..<200 where !merged {
            try await Task.sleep(for: .milliseconds(10))
            // The merge runs on the reader's queue; the object is kept registered by `tea`.
            merged = reader.performAndWait { tea.value(forKey: "rank") == .integer(4) }
        }
        #expect(merged)
    }
}
