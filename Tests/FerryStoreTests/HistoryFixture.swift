import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// A container on a fresh SQLite file that records persistent history (unless told not to), with the catalog model
/// of ``ContextFixture``, and SQL access to the file through a connection of its own.
final class HistoryFixture: Sendable {
    let folder: URL
    let path: String
    let container: PersistentContainer

    var store: PersistentStore { container.persistentStore }

    init(recordsHistory: Bool = true) async throws {
        folder = try TestSupport.makeTemporaryFolder()
        path = folder.appendingPathComponent("history.sqlite").path
        var description = PersistentStoreDescription(path: path)
        description.recordsHistory = recordsHistory
        container = PersistentContainer(
            name: "Catalog", model: ContextFixture.catalogModel(), storeDescription: description)
        try await container.loadPersistentStores()
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A new background context with a name and a transaction author.
    func context(name: String? = nil, author: String? = nil) -> ManagedObjectContext {
        let context = container.newBackgroundContext()
        context.name = name
        context.transactionAuthor = author
        return context
    }

    /// The ID of row `primaryKey` of `entity`.
    func id(_ entity: String, _ primaryKey: Int64) -> ObjectID {
        ObjectID(entityName: entity, primaryKey: primaryKey, storeIdentifier: store.identifier)
    }

    /// Rows of `sql`, read on a connection of its own.
    func rows(_ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: path, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map(\.values)
    }

    /// The single integer `sql` returns.
    func integer(_ sql: String) throws -> Int64? {
        try rows(sql).first?.first?.integer
    }

    /// The one transaction recorded after `token`; fails the test when there is not exactly one.
    func onlyTransaction(after token: Int64?) async throws -> HistoryTransaction {
        let transactions = try await store.fetchHistory(after: token)
        try #require(transactions.count == 1, "expected one transaction, got \(transactions.count)")
        return transactions[0]
    }
}

/// The first element `stream` yields within `seconds`, or nil, so a missing notification fails a test instead of
/// hanging it.
func firstElement<Element: Sendable>(of stream: AsyncStream<Element>, within seconds: Int = 5) async -> Element? {
    await withTaskGroup(of: Element?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

extension HistoryTransaction {
    /// The changes of objects of `entity`, sorted by primary key.
    func changes(of entity: String) -> [HistoryChange] {
        changes.filter { $0.entityName == entity }.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
    }
}
