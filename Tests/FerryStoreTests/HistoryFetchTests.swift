import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Reading, purging and following persistent history: fetch after a token and by author, delete before a token,
/// the notification stream after saves and batch requests, and the data version other processes see.
struct HistoryFetchTests {
    /// Three saves, by authors a, b and a; returns their tokens.
    private func threeSaves(_ fixture: HistoryFixture) throws -> [Int64] {
        var tokens: [Int64] = []
        for (index, author) in ["a", "b", "a"].enumerated() {
            let context = fixture.context(name: "context-\(index)", author: author)
            let token = try context.performAndWait {
                context.insertCategory("Category \(index)")
                try context.save()
                return try #require(try fixture.integer("SELECT max(token) FROM ferry_history_transactions"))
            }
            tokens.append(token)
        }
        return tokens
    }

    @Test func fetchingAfterATokenAndByAuthor() async throws {
        let fixture = try await HistoryFixture()
        let tokens = try threeSaves(fixture)
        #expect(tokens == tokens.sorted() && Set(tokens).count == 3)
        let store = fixture.store

        #expect(try await store.fetchHistory(after: nil).map(\.token) == tokens)
        #expect(try await store.fetchHistory(after: tokens[0]).map(\.token) == [tokens[1], tokens[2]])
        #expect(try await store.fetchHistory(after: tokens[2]).isEmpty)
        #expect(try await store.fetchHistory(after: nil, author: "a").map(\.token) == [tokens[0], tokens[2]])
        #expect(try await store.fetchHistory(after: tokens[0], author: "a").map(\.token) == [tokens[2]])
        #expect(try await store.fetchHistory(after: nil, author: "nobody").isEmpty)
        let second = try #require(try await store.fetchHistory(after: tokens[0], author: "b").first)
        #expect(second.contextName == "context-1")
        #expect(second.changes.map(\.kind) == [.insert])
    }

    @Test func aLimitKeepsTheLatestTransactionsOrTheFirstAfterAToken() async throws {
        let fixture = try await HistoryFixture()
        let tokens = try threeSaves(fixture)
        let store = fixture.store

        let latest = try await store.fetchHistory(after: nil, limit: 2)
        #expect(latest.map(\.token) == [tokens[1], tokens[2]])
        // Each transaction listed keeps its own changes, and only those.
        #expect(latest.map(\.changes.count) == [1, 1])
        #expect(try await store.fetchHistory(after: tokens[0], limit: 1).map(\.token) == [tokens[1]])
        #expect(try await store.fetchHistory(after: nil, author: "a", limit: 1).map(\.token) == [tokens[2]])
        #expect(try await store.fetchHistory(after: nil, limit: 10).map(\.token) == tokens)
    }

    @Test func deletingHistoryBeforeATokenKeepsTheRestAndNeverReusesTokens() async throws {
        let fixture = try await HistoryFixture()
        let tokens = try threeSaves(fixture)
        let store = fixture.store

        try await store.deleteHistory(before: tokens[2])

        #expect(try await store.fetchHistory(after: nil).map(\.token) == [tokens[2]])
        #expect(try fixture.integer("SELECT count(*) FROM ferry_history_changes WHERE token < \(tokens[2])") == 0)
        // A consumer that saw the last deleted transaction misses nothing; one that stopped earlier is told.
        #expect(try await store.fetchHistory(after: tokens[1]).map(\.token) == [tokens[2]])
        await #expect {
            _ = try await store.fetchHistory(after: tokens[0])
        } throws: { error in
            (error as? StoreError)?.code == .historyTokenExpired
                && (error as? StoreError)?.code.coreDataCode == 134301
        }

        try await store.deleteHistory(before: tokens[2] + 1)
        #expect(try await store.fetchHistory(after: nil).isEmpty)
        #expect(try await store.currentHistoryToken() == tokens[2])
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Later")
            try context.save()
        }
        let later = try #require(try await store.currentHistoryToken())
        #expect(later > tokens[2])
        #expect(try await store.fetchHistory(after: tokens[2]).map(\.token) == [later])
    }

    @Test func theNotificationSequenceYieldsAfterASave() async throws {
        let fixture = try await HistoryFixture()
        let notifications = fixture.store.historyNotifications
        let context = fixture.context(name: "editor", author: "app")
        try context.performAndWait {
            context.insertCategory("Tea")
            try context.save()
        }
        let notification = try #require(await firstElement(of: notifications))
        #expect(notification.author == "app" && notification.contextName == "editor")
        #expect(try await fixture.store.currentHistoryToken() == notification.token)
    }

    @Test func theNotificationSequenceYieldsAfterABatchRequest() async throws {
        let fixture = try await HistoryFixture()
        let notifications = fixture.store.historyNotifications
        var request = BatchInsertRequest(entityName: "Category", objects: [["name": .string("Tea")]])
        request.transactionAuthor = "loader"
        _ = try await fixture.store.execute(request, mergePolicy: .error)

        let notification = try #require(await firstElement(of: notifications))
        #expect(notification.author == "loader" && notification.contextName == nil)
        let transaction = try await fixture.onlyTransaction(after: nil)
        #expect(transaction.token == notification.token)
    }

    @Test func aTransactionBecomesADidSaveNotificationToMerge() async throws {
        let fixture = try await HistoryFixture()
        let context = fixture.context()
        let id = try context.performAndWait {
            let tea = context.insertCategory("Tea")
            try context.save()
            return tea.objectID
        }
        let transaction = try await fixture.onlyTransaction(after: nil)
        let notification = transaction.objectIDNotification()
        #expect(notification.insertedObjectIDs == [id])
        #expect(notification.historyToken == transaction.token)
    }

    @Test func theDataVersionChangesOnlyForOtherConnectionsCommits() async throws {
        let fixture = try await HistoryFixture()
        let store = fixture.store
        let before = try await store.dataVersion()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Tea")
            try context.save()
        }
        #expect(try await store.dataVersion() == before)

        // Another store on the same file stands for another process.
        var description = PersistentStoreDescription(path: fixture.path)
        description.recordsHistory = true
        let other = try await PersistentStore.open(description, model: ContextFixture.catalogModel())
        let seenByOther = try await other.currentHistoryToken()
        #expect(seenByOther == (try await store.currentHistoryToken()))
        _ = try await other.execute(
            BatchInsertRequest(entityName: "Category", objects: [["name": .string("Coffee")]]), mergePolicy: .error)

        #expect(try await store.dataVersion() != before)
        let latest = try #require(try await store.currentHistoryToken())
        #expect(latest > (seenByOther ?? 0))
        #expect(try await store.fetchHistory(after: seenByOther).map(\.token) == [latest])
    }
}
