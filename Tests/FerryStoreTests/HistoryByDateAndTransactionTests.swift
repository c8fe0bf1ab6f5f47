import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Fetching and deleting history by date and by transaction, beside the token forms.
struct HistoryByDateAndTransactionTests {
    /// Saves three categories, one save each, and stamps the three transactions 1,000, 2,000 and 3,000 seconds after
    /// 1970 (so the test never depends on the clock); returns their tokens.
    static func threeStampedSaves(_ fixture: HistoryFixture) throws -> [Int64] {
        let context = fixture.context(author: "importer")
        try context.performAndWait {
            for name in ["Tea", "Coffee", "Cocoa"] {
                context.insertCategory(name)
                try context.save()
            }
        }
        let connection = try Connection(path: fixture.path)
        let table = SQL.identifier(HistoryTables.transactions)
        let tokens = try connection.prepare("SELECT token FROM \(table) ORDER BY token").fetchAll().compactMap {
            $0[0].integer
        }
        for (index, token) in tokens.enumerated() {
            let update = try connection.prepare("UPDATE \(table) SET timestamp = ? WHERE token = ?")
            try update.bind([.real(Double(index + 1) * 1_000), .integer(token)])
            try update.run()
        }
        return tokens
    }

    @Test func historyIsFetchedByDate() async throws {
        let fixture = try await HistoryFixture()
        let tokens = try Self.threeStampedSaves(fixture)
        #expect(tokens.count == 3)
        let after = try await fixture.store.fetchHistory(recordedAfter: Date(timeIntervalSince1970: 1_500))
        #expect(after.map(\.token) == Array(tokens.suffix(2)))
        #expect(after.first?.changes.map(\.kind) == [.insert])
        let limited = try await fixture.store.fetchHistory(recordedAfter: Date(timeIntervalSince1970: 0), limit: 1)
        #expect(limited.map(\.token) == [tokens[0]])
        #expect(try await fixture.store.fetchHistory(recordedAfter: Date(timeIntervalSince1970: 3_000)).isEmpty)
        let byOther = try await fixture.store.fetchHistory(recordedAfter: Date(timeIntervalSince1970: 0), author: "app")
        #expect(byOther.isEmpty)
    }

    @Test func aDateBeforeDeletedHistoryGivesWhatIsLeftWithoutExpiring() async throws {
        let fixture = try await HistoryFixture()
        let tokens = try Self.threeStampedSaves(fixture)
        try await fixture.store.deleteHistory(recordedBefore: Date(timeIntervalSince1970: 2_500))
        let left = try await fixture.store.fetchHistory(recordedAfter: Date(timeIntervalSince1970: 0))
        #expect(left.map(\.token) == [tokens[2]])
    }

    @Test func historyIsFetchedAndDeletedByTransaction() async throws {
        let fixture = try await HistoryFixture()
        let tokens = try Self.threeStampedSaves(fixture)
        let all = try await fixture.store.fetchHistory(after: nil)
        let second = try #require(all.dropFirst().first)
        #expect(try await fixture.store.fetchHistory(after: second).map(\.token) == [tokens[2]])
        try await fixture.store.deleteHistory(before: second)
        #expect(try await fixture.store.fetchHistory(after: nil).map(\.token) == Array(tokens.suffix(2)))
        // The first transaction is gone: a consumer that had seen only what came before it has a token that expired.
        await #expect {
            try await fixture.store.fetchHistory(after: tokens[0] - 1)
        } throws: { error in
            (error as? StoreError)?.code == .historyTokenExpired
        }
    }
}
