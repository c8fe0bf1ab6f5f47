import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// A store whose checkpoints run beside its writer (``PersistentStoreDescription/checkpointsInBackground``).
struct BackgroundCheckpointTests {
    @Test func theLogIsCopiedWhileTheStoreWritesAndRemovedWhenItCloses() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        var description = PersistentStoreDescription(path: path)
        description.checkpointsInBackground = true
        // 500 rows of 1 KB make about 150 pages of log: past the threshold, short of the writer's own checkpoint.
        description.walAutoCheckpointPages = 100
        let name = String(repeating: "n", count: 1000)
        do {
            let store = try await PersistentStore.open(description, model: BatchTestFixture.model)
            for chunk in 0..<4 {
                let objects: [[String: AttributeValue?]] = (0..<500).map { row in
                    ["sku": .string("SKU-\(chunk)-\(row)"), "name": .string(name)]
                }
                let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
                _ = try await store.execute(
                    BatchInsertRequest(entityName: "Product", objects: objects), mergePolicy: .error)
                store.checkpointer?.waitUntilIdle()
                // The checkpointer copied the chunk's pages into the database.
                let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
                #expect(after >= before + 500 * 1000, "chunk \(chunk)")
            }
        }

        // Closed: the writer, the last connection, copied the rest of the log and removed it.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reader = try Connection(path: path, mode: .readOnly)
        #expect(try reader.prepare("SELECT count(*) FROM Product").fetchOne() == Row([.integer(2000)]))
    }

    @Test func closingTheStoreRemovesTheLogBeforeItReturnsEvenWithReferencesLeft() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        var description = PersistentStoreDescription(path: path)
        description.checkpointsInBackground = true
        description.walAutoCheckpointPages = 10
        let store = try await PersistentStore.open(description, model: BatchTestFixture.model)
        let objects: [[String: AttributeValue?]] = (0..<300).map { row in
            ["sku": .string("SKU-\(row)"), "name": .string(String(repeating: "n", count: 1000))]
        }
        _ = try await store.execute(BatchInsertRequest(entityName: "Product", objects: objects), mergePolicy: .error)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))

        await store.close()
        // `store` is still referenced: the close itself copied the rest of the log and removed the file.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        await #expect(throws: (any Error).self) {
            try await store.fetch(FetchRequest(entityName: "Product", resultType: .count))
        }
        await store.close()
        let reader = try Connection(path: path, mode: .readOnly)
        #expect(try reader.prepare("SELECT count(*) FROM Product").fetchOne() == Row([.integer(300)]))
    }
}
