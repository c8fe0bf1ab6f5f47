import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Query generations: a pinned context reads the store as it was when pinned, until it saves, is reset, is pinned
/// again or is unpinned.
struct QueryGenerationTests {
    /// A store with Tea (rank 1), and a context pinned to it.
    private func pinned() async throws -> (ContextFixture, ManagedObjectContext) {
        let fixture = try await ContextFixture()
        let seed = fixture.context()
        try seed.performAndWait {
            seed.insertCategory("Tea", rank: 1)
            try seed.save()
        }
        let context = fixture.context()
        try context.performAndWait { try context.setQueryGeneration(from: .current) }
        return (fixture, context)
    }

    /// Another context adds Coffee and sets Tea's rank to 5.
    private func writeElsewhere(_ fixture: ContextFixture) throws {
        let other = fixture.context()
        try other.performAndWait {
            other.insertCategory("Coffee")
            let tea = try #require(try other.fetch(FetchRequest(entityName: "Category")).first)
            tea["rank"] = 5
            try other.save()
        }
    }

    private func names(_ context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest(entityName: "Category", sortDescriptors: [FetchSortDescriptor(key: "name")]))
            .compactMap { $0["name"] as String? }
    }

    @Test func aPinnedContextSeesTheStoreAsItWasUntilItIsPinnedAgain() async throws {
        let (fixture, context) = try await pinned()
        try writeElsewhere(fixture)
        try context.performAndWait { () throws in
            #expect(context.queryGenerationToken != nil)
            #expect(try names(context) == ["Tea"])
            #expect(try context.count(for: FetchRequest(entityName: "Category")) == 1)
            let tea = try #require(try context.fetch(FetchRequest(entityName: "Category")).first)
            #expect(tea.isFault)
            context.refresh(tea, mergeChanges: false)
            #expect(tea["rank"] == 1, "a fault fires from the pinned snapshot")

            let first = context.queryGenerationToken
            try context.setQueryGeneration(from: .current)
            #expect(context.queryGenerationToken != first, "a new generation")
            #expect(try names(context) == ["Coffee", "Tea"])
            context.refresh(tea, mergeChanges: false)
            #expect(tea["rank"] == 5)
        }
    }

    @Test func anUnpinnedContextSeesEveryCommit() async throws {
        let (fixture, context) = try await pinned()
        try context.performAndWait { try context.setQueryGeneration(from: nil) }
        try writeElsewhere(fixture)
        try context.performAndWait { () throws in
            #expect(context.queryGenerationToken == nil)
            #expect(try names(context) == ["Coffee", "Tea"])
        }
    }

    @Test func savingOrResettingMovesAPinnedContextToTheStoreAsItIsThen() async throws {
        let (fixture, context) = try await pinned()
        try writeElsewhere(fixture)
        try context.performAndWait { () throws in
            #expect(try names(context) == ["Tea"])
            context.insertCategory("Mate")
            try context.save()
            #expect(try names(context) == ["Coffee", "Mate", "Tea"], "its own save and what came before it")
            #expect(context.queryGenerationToken != nil, "still pinned")
        }
        let other = fixture.context()
        try other.performAndWait {
            other.insertCategory("Cocoa")
            try other.save()
        }
        try context.performAndWait { () throws in
            #expect(try names(context) == ["Coffee", "Mate", "Tea"])
            context.reset()
            #expect(try names(context) == ["Cocoa", "Coffee", "Mate", "Tea"])
        }
    }

    @Test func batchRequestsDoNotAdvanceAPinnedContext() async throws {
        let (fixture, context) = try await pinned()
        _ = try await fixture.container.persistentStore.execute(
            BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Category")))
        try context.performAndWait { () throws in
            #expect(try names(context) == ["Tea"])
        }
    }

    @Test func aContextKeepsItsOwnTokenAndRefusesAnotherContextsWhichCannotBeCarriedOver() async throws {
        let (fixture, context) = try await pinned()
        let own = try #require(context.performAndWait { context.queryGenerationToken })
        try writeElsewhere(fixture)
        try context.performAndWait {
            try context.setQueryGeneration(from: own)
            #expect(context.queryGenerationToken == own)
            #expect(try names(context) == ["Tea"], "its own token keeps the snapshot")
        }
        let other = fixture.context()
        let error = other.performAndWait {
            #expect(throws: StoreError.self) { try other.setQueryGeneration(from: own) }
        }
        #expect(error?.code == .foreignQueryGeneration)
        let unpinned = other.performAndWait { other.queryGenerationToken == nil }
        #expect(unpinned, "refused, it stays unpinned")
        #expect(try other.performAndWait { try names(other) } == ["Coffee", "Tea"])
    }

    @Test func anInMemoryStoreCannotBePinned() async throws {
        let container = PersistentContainer(
            name: "Memory", model: ContextFixture.catalogModel(), storeDescription: .inMemory)
        try await container.loadPersistentStores()
        let context = container.newBackgroundContext()
        let error = context.performAndWait {
            #expect(throws: StoreError.self) { try context.setQueryGeneration(from: .current) }
        }
        #expect(error?.code == .openFailed)
    }
}
