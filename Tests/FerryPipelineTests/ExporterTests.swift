import FerryIO
import FerryStore
import FerryTestSupport
import Foundation
import Synchronization
import Testing

@testable import FerryPipeline

struct ExporterTests {
    static let everyType: [String: AttributeValue?] = [
        "sku": .string("SKU-1, \"quoted\""), "small": .integer(7), "big": .integer(-9_000_000_000),
        "ratio": .double(0.1), "price": .decimal(Decimal(string: "1234567890.123456789")!), "active": .boolean(true),
        "seen_at": .date(Date(timeIntervalSince1970: 1_767_603_600.25)),
        "token": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        "link": .uri(URL(string: "https://example.com/a?b=c")!), "data": .binary(Data([0, 1, 2, 250, 251])),
    ]

    @Test func everyValueTypeIsWrittenAsItsExportTextInNDJSON() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertItems([Self.everyType, ["sku": .string("SKU-2")]])
        let result = try await fixture.export(to: "items.ndjson")
        #expect(result.rows == 2)
        #expect(
            result.fields == ["sku", "small", "big", "ratio", "price", "active", "seen_at", "token", "link", "data"])
        let lines = try fixture.text("items.ndjson").split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == #"{"sku":"SKU-1, \"quoted\"","small":7,"big":-9000000000,"ratio":0.1,"price":1234567890.123456789,"#
                + #""active":true,"seen_at":"2026-01-05T09:00:00.25Z","token":"e621e1f8-c36c-495a-93fc-0c247a3e6e5f","#
                + #""link":"https://example.com/a?b=c","data":"AAEC+vs="}"#)
        #expect(
            lines.last
                == #"{"sku":"SKU-2","small":null,"big":null,"ratio":null,"price":null,"active":null,"seen_at":null,"#
                + #""token":null,"link":null,"data":null}"#)
    }

    @Test func everyValueTypeIsWrittenAsItsExportTextInCSV() async throws {
        let fixture = try await ExportFixture()
        var whole = Self.everyType
        whole["seen_at"] = .date(Date(timeIntervalSince1970: 1_767_603_600))
        whole["active"] = .boolean(false)
        try await fixture.insertItems([whole, ["sku": .string("")]])
        try await fixture.export(to: "items.csv")
        #expect(
            try fixture.text("items.csv")
                == "sku,small,big,ratio,price,active,seen_at,token,link,data\n"
                + "\"SKU-1, \"\"quoted\"\"\",7,-9000000000,0.1,1234567890.123456789,false,2026-01-05T09:00:00Z,"
                + "e621e1f8-c36c-495a-93fc-0c247a3e6e5f,https://example.com/a?b=c,AAEC+vs=\n"
                + "\"\",,,,,,,,,\n")
    }

    @Test func aPredicateSortAndFieldsShapeTheExport() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...5)
        try await fixture.export(to: "some.csv") { spec in
            spec.predicate = "big > 2"
            spec.sort = try ExportSpec.sortDescriptors(parsing: "-big")
            spec.fields = ["sku", "big"]
        }
        #expect(try fixture.text("some.csv") == "sku,big\nSKU-0005,5\nSKU-0004,4\nSKU-0003,3\n")
        #expect(
            try ExportSpec.sortDescriptors(parsing: "sku, -price,+big")
                == [
                    FetchSortDescriptor(key: "sku"), FetchSortDescriptor(key: "price", ascending: false),
                    FetchSortDescriptor(key: "big"),
                ])
        #expect(throws: PipelineError.self) { try ExportSpec.sortDescriptors(parsing: "sku,,big") }
    }

    @Test func fieldsMayFollowToOneRelationships() async throws {
        let fixture = try await ExportFixture()
        try await fixture.container.performBackgroundTask { context in
            let tea = context.insertObject(entityName: "Category")
            tea["name"] = "Tea"
            for sku in ["SKU-B", "SKU-A"] {
                let item = context.insertObject(entityName: "Item")
                item["sku"] = sku
                item.setObject(tea, forKey: "category")
            }
            let loose = context.insertObject(entityName: "Item")
            loose["sku"] = "SKU-C"
            try context.save()
        }
        try await fixture.export(to: "items.json") { spec in
            spec.fields = ["sku", "category.name"]
            spec.sort = [FetchSortDescriptor(key: "sku")]
        }
        #expect(
            try fixture.text("items.json")
                == "[\n{\"sku\":\"SKU-A\",\"category.name\":\"Tea\"},\n{\"sku\":\"SKU-B\",\"category.name\":\"Tea\"},\n"
                + "{\"sku\":\"SKU-C\",\"category.name\":null}\n]\n")
    }

    @Test func aFetchBatchSizeSmallerThanTheResultWritesEveryRowAndReportsEachBatch() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...25)
        let reported = Mutex<[ExportProgress]>([])
        let result = try await fixture.export(to: "items.tsv", { $0.fetchBatchSize = 10 }) { progress in
            reported.withLock { $0.append(progress) }
        }
        #expect(result.rows == 25)
        #expect(reported.withLock { $0 } == [.rows(10), .rows(20)])
        let lines = try fixture.text("items.tsv").split(separator: "\n")
        #expect(lines.count == 26)
        #expect(lines[25].hasPrefix("SKU-0025\t"))
    }

    @Test func writesCommittedBetweenBatchesDoNotAppearInTheExport() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...30)
        let tokenBefore = try await fixture.store.currentHistoryToken()
        let result = try await fixture.export(
            to: "items.csv",
            { spec in
                spec.fetchBatchSize = 10
                spec.fields = ["sku", "big"]
            }
        ) { progress in
            guard progress == .rows(10) else { return }
            // Another writer commits while the export is between batches.
            try? fixture.execute(
                "INSERT INTO Item (_pk, _ent, _opt, sku, big) VALUES (1000, 2, 1, 'SKU-9999', 9999); "
                    + "UPDATE Item SET big = -1 WHERE sku = 'SKU-0030'; DELETE FROM Item WHERE sku = 'SKU-0029'")
        }
        #expect(result.rows == 30)
        #expect(result.historyToken == tokenBefore)
        let text = try fixture.text("items.csv")
        #expect(text.hasSuffix("SKU-0029,29\nSKU-0030,30\n"))
        #expect(!text.contains("SKU-9999"))
        // The writes did commit: the next export sees them.
        try await fixture.export(to: "after.csv") { $0.fields = ["sku", "big"] }
        #expect(try fixture.text("after.csv").hasSuffix("SKU-0028,28\nSKU-0030,-1\nSKU-9999,9999\n"))
    }

    @Test func theManifestRecordsTheExportAndTheFilesSHA256() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...3)
        try fixture.execute(
            "CREATE TABLE ferry_runs (id INTEGER PRIMARY KEY, pipeline TEXT, status TEXT, pid INTEGER, started_at TEXT, "
                + "finished_at TEXT, seconds REAL, inputs TEXT, counts TEXT, checkpoint TEXT); "
                + "INSERT INTO ferry_runs (id, pipeline, status) VALUES (1, 'a', 'succeeded'), (2, 'a', 'failed'), "
                + "(3, 'b', 'succeeded')")
        let token = try await fixture.store.currentHistoryToken()
        let result = try await fixture.export(to: "items.csv") { spec in
            spec.predicate = "big >= 2"
            spec.fields = ["sku", "big"]
            spec.sort = try ExportSpec.sortDescriptors(parsing: "-big")
        }
        let manifest = try fixture.jsonObject("items.csv.manifest.json")
        #expect(manifest["entity"] as? String == "Item")
        #expect(manifest["predicate"] as? String == "big >= 2")
        #expect(manifest["sort"] as? [String] == ["-big"])
        #expect(manifest["fields"] as? [String] == ["sku", "big"])
        #expect(manifest["format"] as? String == "csv")
        #expect(manifest["file"] as? String == "items.csv")
        #expect(manifest["rows"] as? Int == 2)
        #expect(manifest["bytes"] as? Int == "sku,big\nSKU-0003,3\nSKU-0002,2\n".utf8.count)
        #expect(manifest["history_token"] as? Int64 == token)
        #expect(manifest["runs"] as? [Int] == [1, 3])
        #expect(manifest["since_last"] == nil)
        let created = try #require(manifest["created_at"] as? String)
        #expect(created.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil)
        let sha = try #require(manifest["sha256"] as? String)
        #expect(sha == (try Self.sha256sum(fixture.file("items.csv"))))
        #expect(result.manifest?.sha256 == sha)
    }

    @Test func anExportToStandardOutputWritesNoManifest() {
        let spec = ExportSpec(entity: "Item", output: "-")
        #expect(!spec.writesManifest)
        #expect(spec.format == .csv)
        #expect(ExportSpec(entity: "Item", output: "a/b.jsonl").format == .ndjson)
    }

    @Test func aPredicateThatDoesNotParseFailsWithItsColumn() async throws {
        let fixture = try await ExportFixture()
        let error = await #expect(throws: FetchPredicateError.self) {
            try await fixture.export(to: "items.csv") { $0.predicate = "big >> 3" }
        }
        #expect(error?.code == .syntax)
        #expect(error?.column == 6)
        #expect(!FileManager.default.fileExists(atPath: fixture.file("items.csv")))
    }

    @Test func anUnknownFieldFailsBeforeAnythingIsWritten() async throws {
        let fixture = try await ExportFixture()
        let error = await #expect(throws: FetchRequestError.self) {
            try await fixture.export(to: "items.csv") { $0.fields = ["sku", "colour"] }
        }
        #expect(error?.code == .unknownKeyPath)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path)
        #expect(leftovers.filter { !$0.hasPrefix("items.sqlite") } == [], "no output and no temporary file")
    }

    @Test func externallyStoredBinaryValuesAreReadFromTheirFiles() async throws {
        let fixture = try await ExportFixture()
        let hash = String(repeating: "ab", count: 32)
        let folder = fixture.path + "-blobs/ab"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data([0, 1, 2, 250, 251]).write(to: URL(fileURLWithPath: folder + "/" + hash))
        try fixture.execute(
            "INSERT INTO Item (_pk, _ent, _opt, sku, data) VALUES (1, 2, 1, 'SKU-1', 'ferry-blob:sha256:\(hash)'), "
                + "(2, 2, 1, 'SKU-2', 'not-a-reference')")
        try await fixture.export(to: "items.csv") { $0.fields = ["sku", "data"] }
        #expect(try fixture.text("items.csv") == "sku,data\nSKU-1,AAEC+vs=\nSKU-2,not-a-reference\n")
    }

    static func sha256sum(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }
}
