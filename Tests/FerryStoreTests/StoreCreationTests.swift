import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// A new store appears whole at its path, and a store left with a hot journal opens as SQLite's own tools open it.
struct StoreCreationTests {
    let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category",
            attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
            uniquenessConstraints: [["name"]])
    ])

    /// A store at `path` holding one category, closed.
    func makeStore(at path: String) async throws {
        let store = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
        try store.writer.sync { try $0.execute("INSERT INTO Category (_ent, name) VALUES (1, 'Tea')") }
    }

    @Test func aStoreLeftWithAHotJournalHasItsModelReadAndOpensWithItsCommittedRows() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("s.sqlite").path
        try await makeStore(at: path)
        // A writer in rollback-journal mode, mid-transaction, its cache spilled: the file holds changed pages and
        // the journal the originals. A copy of both is what a kill at this moment leaves: a hot journal.
        let writer = try Connection(path: path)
        try writer.execute("PRAGMA journal_mode = DELETE; PRAGMA cache_size = 10")
        try writer.execute("BEGIN IMMEDIATE")
        let insert = try writer.prepare("INSERT INTO Category (_ent, name) VALUES (1, ?)")
        for number in 0..<2_000 {
            try insert.bind([.text(String(repeating: "x", count: 1_000) + "\(number)")])
            try insert.run()
        }
        let copy = folder.appendingPathComponent("killed.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-journal", toPath: copy + "-journal")
        try writer.execute("ROLLBACK")
        try #require(FileManager.default.fileExists(atPath: copy + "-journal"))

        let stored = try PersistentStore.storedModel(at: copy)

        #expect(stored.versionHash == model.versionHash)
        let store = try await PersistentStore.open(PersistentStoreDescription(path: copy))
        let count = try await store.fetch(FetchRequest(entityName: "Category", resultType: .count))
        #expect(count == .count(1))
    }

    @Test func aNewStoreIsBuiltBesideItsPathAndLeavesNoTemporaryFiles() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("s.sqlite").path
        // What a creation killed earlier left: its process is gone.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let abandoned = folder.appendingPathComponent(".s.sqlite.ferry-new-\(ended.processIdentifier)-7").path
        for suffix in ["", "-journal"] { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: abandoned + suffix)) }
        // A creation under way in a live process (this one) is left alone.
        let live = folder.appendingPathComponent(".s.sqlite.ferry-new-\(getpid())-9").path
        try Data([1]).write(to: URL(fileURLWithPath: live))

        try await makeStore(at: path)

        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.filter { $0.contains("ferry-new") } == [".s.sqlite.ferry-new-\(getpid())-9"], "\(names)")
        #expect(try PersistentStore.storedModel(at: path).versionHash == model.versionHash)
    }

    @Test func aStoreCreatedThroughASymbolicLinkToAFileNotYetThereIsCreatedAtItsDestination() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.sqlite")

        try await makeStore(at: link)

        let attributes = try FileManager.default.attributesOfItem(atPath: link)
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
        #expect(try PersistentStore.storedModel(at: folder.appendingPathComponent("real.sqlite").path) == model)
    }
}
