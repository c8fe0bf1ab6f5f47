import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// PersistentStore.open: a new store is created, a reopened one checked, and fetch requests run on it.
struct PersistentStoreTests {
    let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category",
            attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
            uniquenessConstraints: [["name"]])
    ])

    @Test func aNewFileStoreIsCreatedAndFetchable() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("catalog.sqlite").path
        let store = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(store.metadata.modelHash == model.versionHash)
        try store.writer.sync { try $0.execute("INSERT INTO Category (_ent, name) VALUES (1, 'Tea'), (1, 'Coffee')") }

        var request = FetchRequest(entityName: "Category", resultType: .managedObjectID)
        request.predicate = try FetchPredicate(format: "name BEGINSWITH[c] %@", "co")
        let result = try await store.fetch(request)
        #expect(
            result == .objectIDs([ObjectID(entityName: "Category", primaryKey: 2, storeIdentifier: store.identifier)]))
    }

    @Test func reopeningKeepsTheStoreIdentifierAndAnotherModelIsRefused() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let description = PersistentStoreDescription(path: folder.appendingPathComponent("s.sqlite").path)
        let first = try await PersistentStore.open(description, model: model)
        let second = try await PersistentStore.open(description, model: model)
        #expect(second.identifier == first.identifier)

        var changed = model
        changed.entities[0].attributes.append(AttributeDescription(name: "rank", type: .integer16))
        await #expect {
            try await PersistentStore.open(description, model: changed)
        } throws: { error in
            (error as? StoreError)?.code == .incompatibleModel
        }
    }

    @Test func anInvalidModelIsRefusedBeforeAnythingIsCreated() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("s.sqlite").path
        let invalid = ManagedObjectModel(entities: [EntityDescription(name: "Item", parentEntity: "Missing")])
        await #expect(throws: ModelError.self) {
            try await PersistentStore.open(PersistentStoreDescription(path: path), model: invalid)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func anUnopenableLocationIsAnOpenFailure() async throws {
        await #expect {
            try await PersistentStore.open(PersistentStoreDescription(path: "/nonexistent/dir/s.sqlite"), model: model)
        } throws: { error in
            (error as? StoreError)?.code == .openFailed
        }
    }

    @Test func anInMemoryStoreWorksWithoutAFile() async throws {
        let store = try await PersistentStore.open(.inMemory, model: model)
        try store.writer.sync { try $0.execute("INSERT INTO Category (_ent, name) VALUES (1, 'Tea')") }
        #expect(try await store.fetch(FetchRequest(entityName: "Category", resultType: .count)) == .count(1))
    }
}
