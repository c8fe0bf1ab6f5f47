import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// A store opened read-only (`PersistentStoreDescription.isReadOnly`) reads as any other, refuses every write, and
/// leaves the store exactly as it was.
struct ReadOnlyStoreTests {
    let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category",
            attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
            uniquenessConstraints: [["name"]])
    ])

    /// A store at `path` holding Tea and Coffee, closed.
    func makeStore(at path: String, model: ManagedObjectModel? = nil) async throws {
        let store = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model ?? self.model)
        try store.writer.sync { try $0.execute("INSERT INTO Category (_ent, name) VALUES (1, 'Tea'), (1, 'Coffee')") }
        await store.close()
    }

    func readOnly(_ path: String) -> PersistentStoreDescription {
        var description = PersistentStoreDescription(path: path)
        description.isReadOnly = true
        return description
    }

    func names(in store: PersistentStore) async throws -> [String] {
        var request = FetchRequest(entityName: "Category", resultType: .dictionary)
        request.propertiesToFetch = ["name"]
        request.sortDescriptors = [FetchSortDescriptor(key: "name", ascending: true)]
        guard case .dictionaries(let rows) = try await store.fetch(request) else { return [] }
        return rows.map { row in if case .string(let name)?? = row["name"] { name } else { "?" } }
    }

    /// SQLite's `SQLITE_READONLY`, as it is or behind a ``StoreError``.
    static func isReadOnlyRefusal(_ error: any Error) -> Bool {
        let sqlite = (error as? SQLiteError) ?? ((error as? StoreError)?.underlying as? SQLiteError)
        return sqlite?.code == .readOnly
    }

    @Test func aReadOnlyStoreReadsRefusesEveryWriteAndLeavesNoLogBehind() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("catalog.sqlite").path
        try await makeStore(at: path)
        let store = try await PersistentStore.open(readOnly(path), model: model)
        #expect(try await names(in: store) == ["Coffee", "Tea"])

        #expect {
            try store.writer.sync { try $0.execute("INSERT INTO Category (_ent, name) VALUES (1, 'Milk')") }
        } throws: { ($0 as? SQLiteError)?.code == .readOnly }
        await #expect {
            try await store.execute(
                BatchInsertRequest(entityName: "Category", objects: [["name": .string("Milk")]]),
                mergePolicy: .error)
        } throws: { Self.isReadOnlyRefusal($0) }
        await #expect {
            try await store.execute(BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Category")))
        } throws: { Self.isReadOnlyRefusal($0) }
        await store.close()
        for suffix in ["-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix) left beside the store")
        }

        let reopened = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
        #expect(try await names(in: reopened) == ["Coffee", "Tea"])
        await reopened.close()
    }

    @Test func openingReadOnlyCreatesNothingAndChecksTheModel() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.sqlite").path
        await #expect { try await PersistentStore.open(readOnly(missing), model: model) } throws: {
            ($0 as? StoreError)?.code == .fileNotFound
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)

        let path = folder.appendingPathComponent("catalog.sqlite").path
        try await makeStore(at: path)
        var changed = model
        changed.entities[0].attributes.append(AttributeDescription(name: "rank", type: .integer16))
        await #expect { try await PersistentStore.open(readOnly(path), model: changed) } throws: {
            ($0 as? StoreError)?.code == .incompatibleModel
        }

        let foreign = folder.appendingPathComponent("foreign.sqlite").path
        try Connection(path: foreign).execute("CREATE TABLE notes (body TEXT)")
        await #expect { try await PersistentStore.open(readOnly(foreign), model: model) } throws: {
            ($0 as? StoreError)?.code == .notAFerryStore
        }

        var memory = PersistentStoreDescription.inMemory
        memory.isReadOnly = true
        await #expect { try await PersistentStore.open(memory, model: model) } throws: {
            ($0 as? StoreError)?.code == .openFailed
        }
    }

    /// What opening a store for writing does on the way (history tables added, the blob folder swept) is left
    /// undone, and the file keeps every byte.
    @Test func openingReadOnlyAddsNoHistoryTablesAndSweepsNoBlobs() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("photos.sqlite").path
        let store = try await PersistentStore.open(
            PersistentStoreDescription(path: path), model: BlobStorageFixture.model)
        await store.close()
        let hash = String(repeating: "ab", count: 32)
        let orphan = path + "-blobs/ab/" + hash
        try FileManager.default.createDirectory(atPath: path + "-blobs/ab", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: orphan, contents: Data("unreferenced".utf8)))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))

        var description = readOnly(path)
        description.recordsHistory = true
        let reader = try await PersistentStore.open(description, model: BlobStorageFixture.model)
        await reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(FileManager.default.fileExists(atPath: orphan))
        #expect(!PersistentStore.hasRecordedHistory(at: path))

        // The same open for writing does both.
        description.isReadOnly = false
        let writer = try await PersistentStore.open(description, model: BlobStorageFixture.model)
        await writer.close()
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(PersistentStore.hasRecordedHistory(at: path))
    }
}
