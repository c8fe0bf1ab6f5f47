import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

struct ReadSnapshotTests {
    @Test func aSnapshotSeesTheStoreAsItWasWhenItBeganWhileWritesCommit() async throws {
        let fixture = try await HistoryFixture()
        try await fixture.container.performBackgroundTask { context in
            let category = context.insertObject(entityName: "Category")
            category["name"] = "Tea"
            try context.save()
        }
        let store = fixture.store
        let counts = try await store.withReadSnapshot { snapshot in
            let before = try snapshot.count(of: "Category")
            let token = snapshot.historyToken
            // Another connection commits while the snapshot is open.
            try store.writer.sync { connection in
                try connection.execute("INSERT INTO Category (_pk, _ent, _opt, name) VALUES (99, 1, 1, 'Coffee')")
            }
            let rows = try snapshot.rows(of: FetchRequest(entityName: "Category", resultType: .dictionary))
            var names: [String] = []
            while try rows.next() {
                names.append(rows.text(at: rows.columns.firstIndex { $0.key == "name" } ?? 0) ?? "")
            }
            return (before, try snapshot.count(of: "Category"), names, token)
        }
        #expect(counts.0 == 1)
        #expect(counts.1 == 1)
        #expect(counts.2 == ["Tea"])
        #expect(counts.3 == (try await store.currentHistoryToken()))
        #expect(try await store.withReadSnapshot { try $0.count(of: "Category") } == 2)
    }

    @Test func changedRowsAreThoseInsertedOrUpdatedAfterTheToken() async throws {
        let fixture = try await HistoryFixture()
        let context = fixture.context()
        try await context.perform {
            for name in ["A", "B"] {
                let category = context.insertObject(entityName: "Category")
                category["name"] = name
            }
            try context.save()
        }
        let afterInsert = try #require(try await fixture.store.currentHistoryToken())
        try await context.perform {
            let b = try context.fetch(
                FetchRequest(entityName: "Category", predicate: try FetchPredicate(format: "name == 'B'")))
            b[0]["name"] = "B2"
            let c = context.insertObject(entityName: "Category")
            c["name"] = "C"
            try context.save()
        }
        let names = try await fixture.store.withReadSnapshot { snapshot in
            var request = FetchRequest(entityName: "Category", resultType: .dictionary)
            request.propertiesToFetch = ["name"]
            let rows = try snapshot.rows(of: request, changedAfter: afterInsert)
            var names: [String] = []
            while try rows.next() { names.append(rows.text(at: 0) ?? "") }
            return names
        }
        #expect(names == ["B2", "C"])
    }

    @Test func onlyTheExactShapeOfABlobReferenceNamesAFile() {
        let hash = String(repeating: "0a", count: 32)
        func relative(_ text: String) -> String? {
            Array(text.utf8).withUnsafeBytes { ReadSnapshot.blobRelativePath(ofReference: $0) }
        }
        #expect(relative("ferry-blob:sha256:" + hash) == "0a/" + hash)
        #expect(relative("ferry-blob:sha256:" + hash.uppercased()) == nil)
        #expect(relative("ferry-blob:sha256:" + hash.dropLast()) == nil)
        #expect(relative("ferry-blob:sha256:../../../../etc/passwd" + String(repeating: "0", count: 42)) == nil)
        #expect(relative("other:" + hash) == nil)
    }

    @Test func anInMemoryStoreHasNoSnapshotConnection() async throws {
        let store = try await PersistentStore.open(.inMemory, model: ContextFixture.catalogModel())
        let error = await #expect(throws: StoreError.self) { try await store.withReadSnapshot { _ in 0 } }
        #expect(error?.code == .openFailed)
    }

    @Test func aCopyIsOneSelfContainedFileWithTheSameRows() async throws {
        let fixture = try await HistoryFixture()
        try await fixture.container.performBackgroundTask { context in
            let category = context.insertObject(entityName: "Category")
            category["name"] = "Tea"
            try context.save()
        }
        let copy = fixture.folder.appendingPathComponent("copy.sqlite").path
        try await fixture.store.copy(to: copy)
        #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
        let connection = try Connection(path: copy, mode: .readOnly)
        #expect(try connection.prepare("PRAGMA journal_mode").fetchOne()?[0].text == "delete")
        #expect(try connection.prepare("SELECT name FROM Category").fetchAll().map { $0[0].text } == ["Tea"])
        await #expect(throws: StoreError.self) { try await fixture.store.copy(to: copy) }
    }
}
