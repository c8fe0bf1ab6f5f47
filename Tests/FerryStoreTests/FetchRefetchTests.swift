import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// `includesPropertyValues` and `shouldRefreshRefetchedObjects`: what a fetch reads, and what it does to objects
/// the context already holds. Rows are changed behind the context's back by another connection to the file, as
/// another process would.
struct FetchRefetchTests {
    /// Changes the store file on a connection of its own.
    static func changeBehind(_ fixture: ContextFixture, _ sql: String) throws {
        try Connection(path: fixture.container.storeDescription.sqlitePath).execute(sql)
    }

    static func rankRequest(_ configure: (inout FetchRequest) -> Void = { _ in }) throws -> FetchRequest {
        var request = FetchRequest(entityName: "Category", sortDescriptors: [FetchSortDescriptor(key: "name")])
        configure(&request)
        return request
    }

    @Test func withoutPropertyValuesAFaultReadsItsRowWhenItFires() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Coffee", rank: 1)
            context.insertCategory("Tea", rank: 2)
            try context.save()
            context.reset()

            // The default fetch reads the rows with the IDs: a later change is not seen when the fault fires.
            let cached = try context.fetch(try Self.rankRequest())
            try Self.changeBehind(fixture, "UPDATE Category SET rank = 7 WHERE name = 'Tea'")
            #expect(cached.map { $0["rank"] as Int? } == [1, 2])
            context.reset()

            let idsOnly = try context.fetch(try Self.rankRequest { $0.includesPropertyValues = false })
            #expect(idsOnly.count == 2)
            #expect(idsOnly.map(\.isFault) == [true, true])
            try Self.changeBehind(fixture, "UPDATE Category SET rank = 8 WHERE name = 'Tea'")
            #expect(idsOnly.map { $0["rank"] as Int? } == [1, 8], "each fault read its row when it fired")
        }
    }

    @Test func withoutPropertyValuesReturnsObjectsAsFaultsIsIgnored() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Tea", rank: 2)
            try context.save()
            context.reset()
            let objects = try context.fetch(
                try Self.rankRequest {
                    $0.includesPropertyValues = false
                    $0.returnsObjectsAsFaults = false
                    $0.relationshipKeyPathsForPrefetching = []
                })
            #expect(objects.map(\.isFault) == [true])
        }
    }

    @Test func refetchedObjectsKeepTheirValuesUnlessAskedToRefresh() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Coffee", rank: 1)
            context.insertCategory("Tea", rank: 2)
            try context.save()
            let loaded = try context.fetch(try Self.rankRequest())
            #expect(loaded.map { $0["rank"] as Int? } == [1, 2])
            try Self.changeBehind(fixture, "UPDATE Category SET rank = rank + 10")

            #expect(try context.fetch(try Self.rankRequest()).map { $0["rank"] as Int? } == [1, 2])
            let refreshed = try context.fetch(try Self.rankRequest { $0.shouldRefreshRefetchedObjects = true })
            #expect(refreshed.map { $0["rank"] as Int? } == [11, 12])
            #expect(refreshed.map(\.hasChanges) == [false, false])
            #expect(refreshed[0] === loaded[0], "the same objects, uniqued")
        }
    }

    @Test func aRefreshingFetchKeepsUnsavedChangesOnTopOfTheStoredValues() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let coffee = context.insertCategory("Coffee", rank: 1)
            try context.save()
            coffee["rank"] = 5
            try Self.changeBehind(fixture, "UPDATE Category SET name = 'Kaffee', _opt = _opt + 1")
            let refreshed = try context.fetch(try Self.rankRequest { $0.shouldRefreshRefetchedObjects = true })
            #expect(refreshed.map { $0["name"] as String? } == ["Kaffee"])
            #expect(coffee["rank"] as Int? == 5)
            #expect(coffee.isUpdated)
            // The refresh took the stored version too: saving the change is no conflict.
            try context.save()
            #expect(try fixture.rows("SELECT name, rank FROM Category") == [[.text("Kaffee"), .integer(5)]])
        }
    }
}
