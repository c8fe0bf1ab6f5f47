import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// The objects whose key text is not in a list kept in a table of the store: what a full sync deletes.
struct UnseenKeysTests {
    /// A store of `Item`s keyed by a double `k`, holding `keys`, and a table `seen (run, key)` of key texts.
    private static func store(keys: [Double]) async throws -> (URL, PersistentStore) {
        let folder = try TestSupport.makeTemporaryFolder()
        let model = try ModelFile(
            yaml: """
                entities:
                  Item:
                    attributes:
                      k: double
                    uniquenessConstraints: [[k]]
                """
        ).model
        let container = PersistentContainer(
            name: "unseen", model: model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("unseen.sqlite").path))
        try await container.loadPersistentStores()
        let store = container.persistentStore
        _ = try await store.execute(
            BatchInsertRequest(entityName: "Item", objects: keys.map { ["k": .double($0)] }), mergePolicy: .error)
        try await store.writer.run { connection in
            try connection.execute("CREATE TABLE seen (run INTEGER NOT NULL, key TEXT NOT NULL)")
        }
        return (folder, store)
    }

    private static func see(_ keys: [Double], run: Int64, in store: PersistentStore) async throws {
        let texts = keys.compactMap { StoredValueCodec.keyText(of: [.double($0)], as: [.double]) }
        try await store.writer.run { connection in
            let insert = try connection.prepare("INSERT INTO seen (run, key) VALUES (?, ?)")
            for text in texts {
                try insert.bind([.integer(run), .text(text)])
                try insert.run()
            }
        }
    }

    private static func keys(of ids: [ObjectID], in store: PersistentStore) async throws -> [Double] {
        let list = ids.map { String($0.primaryKey) }.joined(separator: ", ")
        return try await store.writer.run { connection in
            try connection.prepare("SELECT k FROM Item WHERE _pk IN (\(list)) ORDER BY k").fetchAll().compactMap {
                $0[0].real
            }
        }
    }

    @Test func theObjectsWhoseKeyTextNoListedRunSawAreUnseenWhateverTheirRealKeysLookLike() async throws {
        let (folder, store) = try await Self.store(keys: [-0.0, 0.1, 1e20, 2.5, 7])
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.see([0, 0.1], run: 1, in: store)
        try await Self.see([1e20], run: 2, in: store)
        try await Self.see([2.5], run: 3, in: store)

        let seen = KeyTextList(table: "seen", column: "key", filterColumn: "run", filterValues: [1, 2])
        let (considered, unseen) = try await store.objectIDs(ofEntity: "Item", keyedBy: ["k"], notIn: seen)

        #expect(considered == 5)
        #expect(try await Self.keys(of: unseen, in: store) == [2.5, 7])
    }

    @Test func aScopeLimitsTheObjectsConsidered() async throws {
        let (folder, store) = try await Self.store(keys: [1, 2, 3, 4])
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.see([1], run: 1, in: store)
        var request = FetchRequest(entityName: "Item", resultType: .managedObjectID)
        request.predicate = try FetchPredicate(format: "k <= 2")
        guard case .objectIDs(let scope) = try await store.fetch(request) else {
            Issue.record("no object IDs")
            return
        }

        let (considered, unseen) = try await store.objectIDs(
            ofEntity: "Item", keyedBy: ["k"], notIn: KeyTextList(table: "seen", column: "key"),
            amongPrimaryKeys: scope.map(\.primaryKey))

        #expect(considered == 2)
        #expect(try await Self.keys(of: unseen, in: store) == [2])
    }

    @Test func anUnknownAttributeIsRefused() async throws {
        let (folder, store) = try await Self.store(keys: [1])
        defer { try? FileManager.default.removeItem(at: folder) }

        let error = await #expect(throws: StoreError.self) {
            try await store.objectIDs(
                ofEntity: "Item", keyedBy: ["sku"], notIn: KeyTextList(table: "seen", column: "key"))
        }
        #expect(error?.code == .invalidBatchRequest)
    }
}
