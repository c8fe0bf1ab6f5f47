import FerryStore
import Foundation
import Testing

@testable import FerryPipeline
import FerrySQLite

struct IncrementalExportTests {
    @Test func theFirstExportOfANameIsFullThenOnlyChangedRowsWithDeletedTombstones() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...3)
        let first = try await fixture.export(to: "feed.csv") { spec in
            spec.sinceLast = "feed"
            spec.fields = ["sku", "big"]
        }
        #expect(first.rows == 3)
        var manifest = try fixture.jsonObject("feed.csv.manifest.json")
        let since = try #require(manifest["since_last"] as? [String: Any])
        #expect(since["name"] as? String == "feed")
        #expect(since["previous_token"] is NSNull)
        #expect((manifest["deleted"] as? [Any])?.isEmpty == true)
        let firstToken = try #require(first.historyToken)

        _ = try await fixture.store.execute(
            BatchUpdateRequest(
                entityName: "Item", predicate: try FetchPredicate(format: "sku == 'SKU-0002'"),
                propertiesToUpdate: ["big": .constant(.integer(22))]))
        try await fixture.insertItems([["sku": .string("SKU-0004"), "big": .integer(4)]])
        _ = try await fixture.store.execute(
            BatchDeleteRequest(
                fetchRequest: FetchRequest(
                    entityName: "Item", predicate: try FetchPredicate(format: "sku == 'SKU-0003'"))))

        let second = try await fixture.export(to: "feed.csv") { spec in
            spec.sinceLast = "feed"
            spec.fields = ["sku", "big"]
        }
        #expect(second.rows == 2)
        #expect(second.deleted == 1)
        #expect(try fixture.text("feed.csv") == "sku,big\nSKU-0002,22\nSKU-0004,4\n")
        manifest = try fixture.jsonObject("feed.csv.manifest.json")
        #expect((manifest["since_last"] as? [String: Any])?["previous_token"] as? Int64 == firstToken)
        #expect(manifest["deleted"] as? [[String: String]] == [["sku": "SKU-0003"]])
        #expect(manifest["history_token"] as? Int64 == (try await fixture.store.currentHistoryToken()))

        let third = try await fixture.export(to: "feed.csv") { spec in
            spec.sinceLast = "feed"
            spec.fields = ["sku", "big"]
        }
        #expect(third.rows == 0)
        #expect(try fixture.text("feed.csv") == "sku,big\n")
    }

    @Test func aBatchUpdateExportsOnlyTheRowsWhoseValuesItChanged() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...3)
        _ = try await fixture.export(to: "feed.csv") { spec in
            spec.sinceLast = "feed"
            spec.fields = ["sku", "big"]
        }
        // SKU-0002 already holds 2: only the other two change.
        let result = try await fixture.store.execute(
            BatchUpdateRequest(
                entityName: "Item", propertiesToUpdate: ["big": .constant(.integer(2))],
                resultType: .updatedObjectsCount))
        #expect(result.result == .count(2))

        let second = try await fixture.export(to: "feed.csv") { spec in
            spec.sinceLast = "feed"
            spec.fields = ["sku", "big"]
        }
        #expect(second.rows == 2)
        #expect(try fixture.text("feed.csv") == "sku,big\nSKU-0001,2\nSKU-0003,2\n")
    }

    @Test func eachNameKeepsItsOwnToken() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...2)
        #expect(try await fixture.export(to: "a.csv", { $0.sinceLast = "a" }).rows == 2)
        try await fixture.insertNumberedItems(3...3)
        #expect(try await fixture.export(to: "a.csv", { $0.sinceLast = "a" }).rows == 1)
        #expect(try await fixture.export(to: "b.csv", { $0.sinceLast = "b" }).rows == 3)
        let tokens = try await fixture.store.withReadSnapshot { snapshot in
            try snapshot.rows("SELECT name, token, rows FROM ferry_exports ORDER BY name").map(\.values)
        }
        let current = try #require(try await fixture.store.currentHistoryToken())
        #expect(
            tokens == [[.text("a"), .integer(current), .integer(1)], [.text("b"), .integer(current), .integer(3)]])
    }

    @Test func aFailedExportDoesNotMoveTheToken() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...2)
        await #expect(throws: (any Error).self) {
            try await fixture.export(to: "missing-folder/a.csv") { $0.sinceLast = "a" }
        }
        #expect(try await fixture.export(to: "a.csv", { $0.sinceLast = "a" }).rows == 2)
    }

    @Test func anIncrementalExportNeedsAStoreThatRecordsHistory() async throws {
        let fixture = try await ExportFixture(recordsHistory: false)
        try await fixture.insertNumberedItems(1...2)
        let error = await #expect(throws: StoreError.self) {
            try await fixture.export(to: "a.csv") { $0.sinceLast = "a" }
        }
        #expect(error?.code == .historyNotRecorded)
        #expect(error?.message.contains("history") == true)
        #expect(!FileManager.default.fileExists(atPath: fixture.file("a.csv")))
    }
}

/// A session opened only to read (`BulkSession.openForReading`) opens the store read-only: it exports, but an
/// incremental export, which records its token in the store, is refused before it writes anything.
struct ReadOnlySessionExportTests {
    @Test func aReadOnlySessionExportsButRefusesAnIncrementalExportBeforeWriting() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...2)
        let session = try await BulkSession.openForReading(storePath: fixture.path)
        let result = try await session.closing { session in
            #expect(session.container.persistentStore.description.isReadOnly)
            var full = ExportSpec(entity: "Item", output: fixture.file("all.csv"))
            full.fields = ["sku", "big"]
            let result = try await session.export(full)
            var incremental = full
            incremental.output = fixture.file("feed.csv")
            incremental.sinceLast = "feed"
            await #expect {
                try await session.export(incremental)
            } throws: { error in
                let error = error as? PipelineError
                return error?.code == .invalidExport
                    && error?.message
                        == "the incremental export feed records how far it got in the store, and the store is opened "
                        + "read-only"
            }
            return result
        }
        #expect(result.rows == 2)
        #expect(try fixture.text("all.csv") == "sku,big\nSKU-0001,1\nSKU-0002,2\n")
        #expect(!FileManager.default.fileExists(atPath: fixture.file("feed.csv")))
        #expect(!FileManager.default.fileExists(atPath: fixture.file("feed.csv.manifest.json")))

        let recording = try await BulkSession.openForReading(storePath: fixture.path, recordsInStore: true)
        await recording.close()
        #expect(!recording.container.persistentStore.description.isReadOnly)
    }
}
