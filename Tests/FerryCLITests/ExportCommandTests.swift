import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The built `ferry` binary's export, snapshot, inspect and history commands on a catalog store made with
/// `Pipelines/catalog.model.yml`.
struct ExportCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    /// A catalog store recording history, with three products written in two transactions, in a fresh folder.
    static func withCatalogStore(_ body: (URL, String) async throws -> Void) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("catalog.sqlite").path
        var description = PersistentStoreDescription(path: path)
        description.recordsHistory = true
        let model = try ManagedObjectModel.load(
            from: TestSupport.packageRoot.appendingPathComponent("Pipelines/catalog.model.yml").path)
        try await {
            let container = PersistentContainer(name: "Catalog", model: model, storeDescription: description)
            try await container.loadPersistentStores()
            var first = BatchInsertRequest(
                entityName: "Product",
                objects: [
                    ["sku": .string("SKU-0001"), "name": .string("Tea"), "price": .decimal(Decimal(string: "4.50")!)],
                    ["sku": .string("SKU-0002"), "name": .string("Café, crème"), "price": .decimal(12)],
                ])
            first.transactionAuthor = "seed"
            _ = try await container.persistentStore.execute(first, mergePolicy: .error)
            var second = BatchInsertRequest(
                entityName: "Product",
                objects: [["sku": .string("SKU-0003"), "name": .string("Mug"), "quantity": .integer(3)]])
            second.transactionAuthor = "nightly"
            _ = try await container.persistentStore.execute(second, mergePolicy: .error)
        }()
        try await body(folder, path)
    }

    @Test func exportWritesCSVToStandardOutputAndLogsToStandardError() async throws {
        try await Self.withCatalogStore { folder, store in
            let result = try ferry.run([
                "export", "--store", store, "--entity", "Product", "--fields", "sku,name,price,active",
                "--sort", "-sku",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(
                result.standardOutput
                    == "sku,name,price,active\nSKU-0003,Mug,,true\nSKU-0002,\"Café, crème\",12,true\n"
                    + "SKU-0001,Tea,4.5,true\n")
            #expect(result.standardError.contains("exported 3 Product rows"))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.hasSuffix(".json") })
        }
    }

    @Test func exportToAFileWritesItsManifestBeside() async throws {
        try await Self.withCatalogStore { folder, store in
            let output = folder.appendingPathComponent("cheap.ndjson").path
            let result = try ferry.run([
                "export", "--store", store, "--entity", "Product", "--where", "price < 10", "--fields", "sku,price",
                "--output", output, "--quiet",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "")
            #expect(result.standardError == "")
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "{\"sku\":\"SKU-0001\",\"price\":4.5}\n")
            let manifest =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: output + ".manifest.json"))) as? [String: Any]
            #expect(manifest?["rows"] as? Int == 1)
            #expect(manifest?["format"] as? String == "ndjson")
            #expect(manifest?["history_token"] as? Int == 2)
            #expect((manifest?["sha256"] as? String)?.count == 64)
        }
    }

    @Test func aBadPredicateExitsWith64AndPointsAtTheColumn() async throws {
        try await Self.withCatalogStore { _, store in
            let result = try ferry.run(["export", "--store", store, "--entity", "Product", "--where", "price >> 3"])
            #expect(result.status == 64)
            #expect(result.standardOutput == "")
            #expect(result.standardError.contains("column 8:"))
            #expect(result.standardError.contains("    price >> 3\n           ^"))
        }
    }

    @Test func anUnknownEntityExitsWith64AndAMissingStoreWith66() async throws {
        try await Self.withCatalogStore { folder, store in
            let unknown = try ferry.run(["export", "--store", store, "--entity", "Nope"])
            #expect(unknown.status == 64)
            #expect(unknown.standardError.contains("'Nope'"))
            let missing = folder.appendingPathComponent("missing.sqlite").path
            let absent = try ferry.run(["export", "--store", missing, "--entity", "Product"])
            #expect(absent.status == 66)
            #expect(!FileManager.default.fileExists(atPath: missing), "export never creates a store")
        }
    }

    @Test func sinceLastExportsOnlyWhatChanged() async throws {
        try await Self.withCatalogStore { folder, store in
            let output = folder.appendingPathComponent("feed.csv").path
            let arguments = [
                "export", "--store", store, "--entity", "Product", "--fields", "sku", "--since-last", "feed",
                "--output", output,
            ]
            #expect(try ferry.run(arguments).status == 0)
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "sku\nSKU-0001\nSKU-0002\nSKU-0003\n")
            let again = try ferry.run(arguments)
            #expect(again.status == 0)
            #expect(again.standardError.contains("exported 0 Product rows"))
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "sku\n")
        }
    }

    @Test func snapshotCopiesTheStoreAndRefusesToOverwrite() async throws {
        try await Self.withCatalogStore { folder, store in
            let target = folder.appendingPathComponent("snap").path
            let result = try ferry.run(["snapshot", "--store", store, "--output", target])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.contains("Product 3"))
            let copy = target + "/catalog.sqlite"
            let inspect = try ferry.run(["inspect", "--store", copy, "--json"])
            #expect(inspect.status == 0, "\(inspect.standardError)")
            let report = try JSONSerialization.jsonObject(with: Data(inspect.standardOutput.utf8)) as? [String: Any]
            let entities = report?["entities"] as? [[String: Any]]
            #expect(entities?.first { $0["name"] as? String == "Product" }?["rows"] as? Int == 3)

            let again = try ferry.run(["snapshot", "--store", store, "--output", target])
            #expect(again.status == 74)
            #expect(again.standardError.contains("already exists"))
        }
    }

    @Test func inspectReportsEntitiesHistoryAndBlobsAsJSON() async throws {
        try await Self.withCatalogStore { _, store in
            let result = try ferry.run(["inspect", "--store", store, "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            let entities = try #require(report["entities"] as? [[String: Any]])
            #expect(entities.map { $0["name"] as? String } == ["Category", "Product", "Order", "OrderItem"])
            #expect(entities.map { $0["rows"] as? Int } == [0, 3, 0, 0])
            let history = report["history"] as? [String: Any]
            #expect(history?["latest_token"] as? Int == 2)
            #expect(history?["transactions"] as? Int == 2)
            #expect((report["blobs"] as? [String: Any])?["files"] as? Int == 0)
            #expect((report["runs"] as? [Any])?.isEmpty == true)

            let table = try ferry.run(["inspect", "--store", store])
            #expect(table.status == 0)
            #expect(table.standardOutput.contains("  Product    3\n"))
            #expect(table.standardOutput.contains("latest token 2, 2 transactions kept"))
        }
    }

    @Test func historyListsTransactionsWithTheirChanges() async throws {
        try await Self.withCatalogStore { _, store in
            let all = try ferry.run(["history", "--store", store, "--json"])
            #expect(all.status == 0, "\(all.standardError)")
            let transactions = try #require(
                try JSONSerialization.jsonObject(with: Data(all.standardOutput.utf8)) as? [[String: Any]])
            #expect(transactions.map { $0["author"] as? String } == ["seed", "nightly"])
            #expect(transactions.map { ($0["changes"] as? [Any])?.count } == [2, 1])

            let later = try ferry.run(["history", "--store", store, "--after", "1"])
            #expect(later.status == 0)
            #expect(later.standardOutput.hasPrefix("#2 "))
            #expect(later.standardOutput.contains("author=nightly (1 change)\n  insert Product 3\n"))
            let seed = try ferry.run(["history", "--store", store, "--author", "seed", "--json"])
            #expect(seed.standardOutput.contains("\"seed\""))
            #expect(!seed.standardOutput.contains("\"nightly\""))

            let latest = try ferry.run(["history", "--store", store, "--limit", "1"])
            #expect(latest.status == 0, "\(latest.standardError)")
            #expect(latest.standardOutput.hasPrefix("#2 "))
            #expect(!latest.standardOutput.contains("#1 "))
            let first = try ferry.run(["history", "--store", store, "--after", "0", "--limit", "1"])
            #expect(first.standardOutput.hasPrefix("#1 "))
            #expect(!first.standardOutput.contains("#2 "))
            #expect(try ferry.run(["history", "--store", store, "--limit", "0"]).status == 64)
        }
    }

    @Test func theDatePredicateThatTheHelpShowsKeepsTheObjectsFrom2026On() throws {
        let example = "created_at >= CAST(788918400, 'NSDate')"
        for command in ["export", "publish"] {
            let help = try ferry.run([command, "--help"]).standardOutput
            // The help wraps its lines; compare with the spaces made single.
            #expect(help.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(example), "\(command)")
        }
        try TestSupport.withTemporaryFolder { folder in
            // Dates 1900-01-01, 9999-12-31, none, 1969-12-31.
            let things = try EveryTypeStore(in: folder, ferry: ferry)
            let output = folder.appendingPathComponent("recent.csv").path
            try things.run([
                "export", "--entity", "Thing", "--fields", "key", "--where", "at >= CAST(788918400, 'NSDate')",
                "--output", output,
            ])
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "key\nb\n")
        }
    }

    @Test func eachCommandsHelpTeachesWithExamples() throws {
        for command in ["export", "snapshot", "inspect", "history"] {
            let help = try ferry.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.standardOutput.contains("Examples:"), "\(command)")
            #expect(help.standardOutput.contains("ferry \(command) --store"), "\(command)")
        }
    }
}
