import FerryStore
import Foundation
import Testing

@testable import FerryPipeline

struct StoreSnapshotterTests {
    @Test func aSnapshotOpensAsAStoreWithTheSameCountsAndItsBlobFiles() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...4)
        let hash = String(repeating: "cd", count: 32)
        let blobs = fixture.path + "-blobs/cd"
        try FileManager.default.createDirectory(atPath: blobs, withIntermediateDirectories: true)
        try Data("a large value".utf8).write(to: URL(fileURLWithPath: blobs + "/" + hash))
        try Data("an orphan".utf8).write(
            to: URL(fileURLWithPath: blobs + "/" + String(repeating: "cd", count: 31) + "ee"))
        try fixture.execute("UPDATE Item SET data = 'ferry-blob:sha256:\(hash)' WHERE sku = 'SKU-0001'")
        let token = try await fixture.store.currentHistoryToken()

        let folder = fixture.file("snap")
        let manifest = try await StoreSnapshotter(store: fixture.store).snapshot(into: folder)
        #expect(manifest.file == "items.sqlite")
        #expect(manifest.entities == [.init(name: "Category", rows: 0), .init(name: "Item", rows: 4)])
        #expect(manifest.historyToken == token)
        #expect(manifest.blobFiles == 1)
        let copy = folder + "/items.sqlite"
        #expect(manifest.sha256 == (try ExporterTests.sha256sum(copy)))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
                == ["items.sqlite", "items.sqlite-blobs", "manifest.json"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: copy + "-blobs/cd") == [hash], "only referenced files")
        let written = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json")))
        #expect((written as? [String: Any])?["sha256"] as? String == manifest.sha256)

        // The copy is a store of its own: it opens with the model it keeps and exports what the original held.
        let container = try await PersistentContainer(
            name: "Copy", storeDescription: PersistentStoreDescription(path: copy))
        try await container.loadPersistentStores()
        var spec = ExportSpec(entity: "Item", output: folder + "/items.csv")
        spec.fields = ["sku", "data"]
        spec.predicate = "big == 1"
        try await Exporter(store: container.persistentStore).export(spec)
        let text = try String(contentsOfFile: folder + "/items.csv", encoding: .utf8)
        #expect(text == "sku,data\nSKU-0001,\(Data("a large value".utf8).base64EncodedString())\n")
    }

    @Test func aSnapshotNeverOverwritesAnother() async throws {
        let fixture = try await ExportFixture()
        let folder = fixture.file("snap")
        _ = try await StoreSnapshotter(store: fixture.store).snapshot(into: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))
        let error = await #expect(throws: PipelineError.self) {
            try await StoreSnapshotter(store: fixture.store).snapshot(into: folder)
        }
        #expect(error?.code == .outputExists)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json")) == before)
    }
}
