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
    /// Every notification `stream` delivered once `broadcaster`'s streams are ended (they were posted
    /// synchronously, so all are buffered): nothing waits on a notification that may not come.
    static func collect<Notification>(
        _ stream: AsyncStream<Notification>, ending broadcaster: NotificationBroadcaster<Notification>
    ) async -> [Notification] {
        broadcaster.finish()
        var all: [Notification] = []
        for await notification in stream { all.append(notification) }
        return all
    }

    @Test func objectsDidChangeListsEachEventsInsertsUpdatesAndDeletes() async throws {
        let fixture = try await ContextFixture(model: ContextFixture.catalogModel(productsDeleteRule: .cascade))
        let context = fixture.context()
        let stream = context.objectsDidChangeNotifications
        let inserted = try context.performAndWait {
            let coffee = context.insertCategory("Coffee")
            let tea = context.insertCategory("Tea")
            let product = context.insertProduct("P1", category: coffee)
            let inserted: Set = [coffee.objectID, tea.objectID, product.objectID]
            try context.save()
            return inserted
        }
        // `perform` processes pending changes at its end (performAndWait does not, as in Core Data).
        let (updated, deleted) = try await context.perform {
            let all = try context.all("Category", sortedBy: "name") + context.all("Product", sortedBy: "sku")
            all[1]["rank"] = 3
            all[1]["rank"] = 4
            context.delete(all[0])
            return ([all[1].objectID], Set([all[0].objectID, all[2].objectID]))
        }
        context.performAndWait {
            // An object inserted and deleted in one event is neither.
            let mate = context.insertCategory("Mate")
            context.delete(mate)
            context.reset()
        }
        let changes = await Self.collect(stream, ending: context.changeBroadcaster)
        try #require(changes.count == 3, "\(changes)")
        #expect(changes[0].insertedObjectIDs == inserted)
        #expect(changes[0].updatedObjectIDs.isEmpty && changes[0].deletedObjectIDs.isEmpty)
        #expect(changes[1].updatedObjectIDs == Set(updated))
        #expect(changes[1].deletedObjectIDs == deleted, "the cascade is listed")
        #expect(changes[1].insertedObjectIDs.isEmpty)
        #expect(changes[2].invalidatedAllObjects)
        #expect(changes[2].insertedObjectIDs.isEmpty)
    }

    @Test func aContextWithoutListenersRecordsNothing() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        context.performAndWait {
            context.insertCategory("Coffee")
            #expect(context.eventChanges == .none)
        }
    }

    @Test func willSaveListsWhatTheSaveWillWrite() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        context.name = "importer"
        let stream = context.willSaveNotifications
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
        let notifications = await Self.collect(stream, ending: context.willSaveBroadcaster)
        try #require(notifications.count == 2, "\(notifications)")
        #expect(notifications[0].insertedObjectIDs == inserted)
        #expect(notifications[0].contextName == "importer")
        #expect(notifications[1].insertedObjectIDs.isEmpty)
        #expect(notifications[1].updatedObjectIDs == [updated])
        #expect(notifications[1].deletedObjectIDs == [deleted])
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
