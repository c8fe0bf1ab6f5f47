import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import Testing

@testable import FerryPipeline

/// Bulk runs create stores with 16 KiB pages; an existing store keeps its own, and the log is checkpointed after the
/// same number of bytes whatever the page size.
struct StoreSettingsPageSizeTests {
    let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Product",
            attributes: [AttributeDescription(name: "sku", type: .string, isOptional: false)],
            uniquenessConstraints: [["sku"]])
    ])

    @Test func aStoreABulkRunCreatesHasSixteenKiBPagesAndChecksItsLogEverySixtyFourMiB() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("new.sqlite").path

        let container = try await StoreSettings().loadContainer(
            storePath: path, modelPath: nil, inferredModel: { model }, logger: Logger(label: "test"))

        let store = container.persistentStore
        let size = try store.writer.sync { try $0.prepare("PRAGMA page_size").fetchOne()?[0].integer }
        #expect(size == 16_384)
        #expect(store.description.walAutoCheckpointPages == 4_096)
        #expect(StoreSettings.pageSize(ofStoreAt: path, creatingWith: nil) == 16_384)
    }

    @Test func theStoresOwnPageSizeIsReadFromItsHeaderAndAMissingStoreGetsTheNewSize() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var sizes: [Int] = []
        for size in [4_096, 16_384, 65_536] {
            let path = folder.appendingPathComponent("\(size).sqlite").path
            let connection = try Connection(path: path, pageSize: size)
            try connection.execute("CREATE TABLE t (x)")
            sizes.append(StoreSettings.pageSize(ofStoreAt: path, creatingWith: 512))
        }
        let missing = folder.appendingPathComponent("missing.sqlite").path
        let text = folder.appendingPathComponent("notes.txt")
        try Data("not a database, but long enough".utf8).write(to: text)

        #expect(sizes == [4_096, 16_384, 65_536])
        #expect(StoreSettings.pageSize(ofStoreAt: missing, creatingWith: 16_384) == 16_384)
        #expect(StoreSettings.pageSize(ofStoreAt: missing, creatingWith: nil) == 4_096)
        #expect(StoreSettings.pageSize(ofStoreAt: text.path, creatingWith: 16_384) == 4_096)
    }
}
