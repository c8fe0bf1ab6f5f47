import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// `stalenessInterval`: whether a fault fires from the row its fetch read or reads the store again. Rows changed
/// behind the context's back show which it did.
struct ContextStalenessTests {
    private func seeded() async throws -> ContextFixture {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertProduct("T-1", name: "Sencha")
            try context.save()
        }
        return fixture
    }

    private func overwriteRows(_ fixture: ContextFixture) throws {
        try fixture.container.persistentStore.writer.sync { connection in
            try connection.execute("UPDATE Product SET name = 'changed'")
        }
    }

    /// The name a fault fetched under `interval` reads when it fires after the row changed; `setAfterFetch` sets
    /// the interval between the fetch and the firing instead of before the fetch.
    private func nameAfterChange(interval: TimeInterval, setAfterFetch: Bool = false) async throws -> String? {
        let fixture = try await seeded()
        let context = fixture.context()
        return try context.performAndWait {
            if !setAfterFetch { context.stalenessInterval = interval }
            let products = try context.fetch(FetchRequest(entityName: "Product"))
            #expect(products[0].isFault)
            try overwriteRows(fixture)
            if setAfterFetch { context.stalenessInterval = interval }
            return products[0]["name"]
        }
    }

    @Test func theDefaultIsNegativeAndUsesTheFetchedRowWhateverItsAge() async throws {
        let fixture = try await seeded()
        #expect(fixture.context().stalenessInterval < 0, "as in Core Data")
        #expect(try await nameAfterChange(interval: -1) == "Sencha")
    }

    @Test func zeroMakesEveryFaultReadTheStore() async throws {
        #expect(try await nameAfterChange(interval: 0) == "changed")
    }

    @Test func aRowYoungerThanTheIntervalFillsTheFault() async throws {
        #expect(try await nameAfterChange(interval: 3_600) == "Sencha")
    }

    @Test func aRowOlderThanTheIntervalIsReadAgain() async throws {
        let fixture = try await seeded()
        let context = fixture.context()
        try context.performAndWait {
            context.stalenessInterval = 0.05
            let products = try context.fetch(FetchRequest(entityName: "Product"))
            try overwriteRows(fixture)
            // The row only gets older while waiting: a slow machine cannot make it young again.
            Thread.sleep(forTimeInterval: 0.2)
            #expect(products[0]["name"] == "changed")
        }
    }

    @Test func aRowCachedWhileTheIntervalWasNegativeHasNoAgeAndCountsAsStale() async throws {
        #expect(try await nameAfterChange(interval: 3_600, setAfterFetch: true) == "changed")
    }

    @Test func loadedObjectsKeepTheirValuesWhateverTheInterval() async throws {
        let fixture = try await seeded()
        let context = fixture.context()
        try context.performAndWait {
            context.stalenessInterval = 0
            var request = FetchRequest(entityName: "Product")
            request.returnsObjectsAsFaults = false
            let products = try context.fetch(request)
            try overwriteRows(fixture)
            #expect(products[0]["name"] == "Sencha", "it applies to firing faults only")
        }
    }
}

/// `retainsRegisteredObjects`: registered objects without changes are held weakly unless it is on.
struct ContextRetentionTests {
    /// Saves a category in `context` and lets go of it; returns its ID.
    private func savedCategory(in context: ManagedObjectContext, _ name: String) throws -> ObjectID {
        try context.performAndWait {
            let category = context.insertCategory(name)
            try context.save()
            return category.objectID
        }
    }

    @Test func byDefaultAnObjectWithoutChangesGoesWhenTheCallerLetsGo() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        #expect(context.performAndWait { !context.retainsRegisteredObjects })
        let id = try savedCategory(in: context, "Tea")
        #expect(context.performAndWait { context.registeredObject(for: id) == nil })
    }

    @Test func turnedOnTheContextKeepsEveryRegisteredObjectUntilReset() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        context.performAndWait { context.retainsRegisteredObjects = true }
        let tea = try savedCategory(in: context, "Tea")
        let fetched = try context.performAndWait {
            try context.fetchObjectIDs(FetchRequest(entityName: "Category")).map { context.object(with: $0).objectID }
        }
        #expect(fetched == [tea])
        context.performAndWait {
            #expect(context.registeredObject(for: tea)?["name"] == "Tea", "kept past the save, with its values")
            context.reset()
            #expect(context.registeredObject(for: tea) == nil)
            #expect(context.retainsRegisteredObjects, "reset keeps the setting")
        }
        let coffee = try savedCategory(in: context, "Coffee")
        #expect(context.performAndWait { context.registeredObject(for: coffee) != nil })
    }

    @Test func turningItOnKeepsTheObjectsAlreadyRegisteredAndTurningItOffLetsGo() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        _ = try savedCategory(in: context, "Tea")
        let id = try context.performAndWait {
            let objects = try context.fetch(FetchRequest(entityName: "Category"))
            context.retainsRegisteredObjects = true
            return objects[0].objectID
        }
        #expect(context.performAndWait { context.registeredObject(for: id) != nil })
        context.performAndWait { context.retainsRegisteredObjects = false }
        #expect(context.performAndWait { context.registeredObject(for: id) == nil })
    }

    @Test func aDeletionSavedLetsGoOfTheObject() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        context.performAndWait { context.retainsRegisteredObjects = true }
        let id = try savedCategory(in: context, "Tea")
        try context.performAndWait {
            context.delete(context.object(with: id))
            try context.save()
        }
        #expect(context.performAndWait { context.registeredObject(for: id) == nil })
    }
}

/// `changedValuesForCurrentEvent()`: the attributes changed since the context last processed its pending changes,
/// with the values they had then.
struct ChangedValuesForCurrentEventTests {
    @Test func eachEventListsWhatChangedInItWithTheValuesBefore() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 2)
            #expect(tea.changedValuesForCurrentEvent() == ["name": nil, "rank": nil], "inserted: every set attribute")
            try context.save()
            #expect(tea.changedValuesForCurrentEvent().isEmpty)

            tea["rank"] = 3
            tea["name"] = "Green tea"
            #expect(
                tea.changedValuesForCurrentEvent() == [
                    "rank": AttributeValue.integer(2), "name": AttributeValue.string("Tea"),
                ])
            context.processPendingChanges()
            #expect(tea.changedValuesForCurrentEvent().isEmpty, "a new event")
            #expect(Set(tea.changedValues().keys) == ["rank", "name"], "changedValues still counts from the save")

            tea["rank"] = 4
            tea["name"] = "Tea"
            tea["name"] = "Green tea"
            #expect(
                tea.changedValuesForCurrentEvent() == ["rank": AttributeValue.integer(3)],
                "a value set back within the event is left out")
            try context.save()
            #expect(tea.changedValuesForCurrentEvent().isEmpty, "the save ends it")
        }
    }

    @Test func aPerformEndsTheEvent() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        let id = try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 2)
            try context.save()
            return tea.objectID
        }
        let during = try await context.perform {
            let tea = context.object(with: id)
            tea["rank"] = 5
            return tea.changedValuesForCurrentEvent() == ["rank": AttributeValue.integer(2)]
        }
        #expect(during)
        let after = context.performAndWait { context.object(with: id).changedValuesForCurrentEvent() }
        #expect(after.isEmpty)
        #expect(context.performAndWait { context.object(with: id).changedValues() } == ["rank": .integer(5)])
    }
}
