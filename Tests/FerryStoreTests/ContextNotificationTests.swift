import Foundation
import Testing

@testable import FerryStore

/// A category that records its fault callbacks and what it could read in them.
final class FaultTrackedCategory: ManagedObject {
    var events: [String] = []

    override func willTurnIntoFault() { events.append("will \(self["name"] as String? ?? "-") \(isFault)") }
    override func didTurnIntoFault() { events.append("did \(isFault)") }
}

/// Objects-did-change and will-save notifications, and the fault callbacks.
struct ContextNotificationTests {
    @Test func objectsDidChangeListsEachEventsInsertsUpdatesAndDeletes() async throws {
        let fixture = try await ContextFixture(model: ContextFixture.catalogModel(productsDeleteRule: .cascade))
        let context = fixture.context()
        let changes = context.objectsDidChangeNotifications
        var iterator = changes.makeAsyncIterator()
        let (coffee, tea, product) = try context.performAndWait {
            let coffee = context.insertCategory("Coffee")
            let tea = context.insertCategory("Tea")
            let product = context.insertProduct("P1", category: coffee)
            let inserted = Set([coffee.objectID, tea.objectID, product.objectID])
            context.processPendingChanges()
            try context.save()
            return (coffee, tea, (product, inserted))
        }
        let first = await iterator.next()
        #expect(first?.insertedObjectIDs == product.1)
        #expect(first?.updatedObjectIDs == [])

        context.performAndWait {
            tea["rank"] = 3
            tea["rank"] = 4
            context.delete(coffee)
        }
        let second = await iterator.next()
        #expect(second?.updatedObjectIDs == [tea.objectID])
        #expect(second?.deletedObjectIDs == [coffee.objectID, product.0.objectID], "the cascade is listed")
        #expect(second?.insertedObjectIDs == [])

        context.performAndWait {
            // An object inserted and deleted in one event is neither.
            let mate = context.insertCategory("Mate")
            context.delete(mate)
            context.reset()
        }
        let third = await iterator.next()
        #expect(third?.invalidatedAllObjects == true)
        #expect(third?.insertedObjectIDs == [])
    }

    @Test func aContextWithoutListenersRecordsNothing() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        context.performAndWait {
            context.insertCategory("Coffee")
            context.processPendingChanges()
            #expect(context.eventChanges == .none)
        }
    }

    @Test func willSaveListsWhatTheSaveWillWrite() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        context.name = "importer"
        let notifications = context.willSaveNotifications
        var iterator = notifications.makeAsyncIterator()
        let (inserted, updated, deleted) = try context.performAndWait {
            let coffee = context.insertCategory("Coffee")
            let tea = context.insertCategory("Tea")
            let inserted: Set = [coffee.objectID, tea.objectID]
            try context.save()
            tea["rank"] = 2
            context.delete(coffee)
            let changed = (tea.objectID, coffee.objectID)
            try context.save()
            try context.save()  // nothing to save: no notification
            return (inserted, changed.0, changed.1)
        }
        let first = await iterator.next()
        #expect(first?.insertedObjectIDs == inserted)
        #expect(first?.contextName == "importer")
        let second = await iterator.next()
        #expect(second?.insertedObjectIDs == [])
        #expect(second?.updatedObjectIDs == [updated])
        #expect(second?.deletedObjectIDs == [deleted])
    }

    @Test func refreshingAnObjectCallsTheFaultCallbacksAroundIt() async throws {
        let fixture = try await ContextFixture { $0.register(FaultTrackedCategory.self, forEntity: "Category") }
        let context = fixture.context()
        try context.performAndWait {
            let tea = try #require(context.insertCategory("Tea") as? FaultTrackedCategory)
            try context.save()
            context.refresh(tea, mergeChanges: false)
            #expect(tea.events == ["will Tea false", "did true"])
            #expect(tea["name"] as String? == "Tea", "the fault fires again")
        }
    }
}

/// `hasPersistentChangedValues`, which compares with the values last fetched or saved.
struct PersistentChangedValuesTests {
    @Test func aChangeSetBackIsNoLongerAPersistentChange() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 2)
            #expect(tea.hasPersistentChangedValues, "inserted")
            try context.save()
            #expect(!tea.hasPersistentChangedValues)
            tea["rank"] = 3
            #expect(tea.hasPersistentChangedValues)
            tea["rank"] = 2
            #expect(!tea.hasPersistentChangedValues, "the rank is back to the saved one")
            #expect(tea.isUpdated, "Core Data keeps it updated until the save")
            context.refresh(tea, mergeChanges: false)
            #expect(!tea.hasPersistentChangedValues)
            #expect(tea.isFault, "reading it did not fire the fault")
        }
    }
}
