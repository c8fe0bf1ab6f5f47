import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// `ferry run` and `ferry validate` on the shipped pipelines, run as built binaries in a copy of the package's
/// Pipelines/ and SampleData/ (the pipelines write to ../out/ beside them).
struct PipelineCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    /// A temporary folder holding copies of Pipelines/ and SampleData/.
    static func workspace() throws -> URL {
        let folder = try TestSupport.makeTemporaryFolder()
        for name in ["Pipelines", "SampleData"] {
            try FileManager.default.copyItem(
                at: TestSupport.packageRoot.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        return folder
    }

    static func rows(_ store: URL, _ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: store.path, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { row in (0..<row.count).map { row[$0] } }
    }

    @Test func theDemoPipelineSeedsUpdatesExportsAndSnapshots() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }

        let result = try ferry.run(["run", "Pipelines/demo.yml", "--json"], in: folder)

        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(PipelineReport.self, from: Data(result.standardOutput.utf8))
        #expect(report.status == "succeeded")
        #expect(
            report.steps.map(\.name) == [
                "categories", "products", "product updates", "orders", "out of stock", "drop discontinued",
                "products csv", "premium ndjson", "products parquet", "snapshot", "parquet snapshot",
            ])
        let products = report.steps[1].counts
        #expect(products.read == 20 && products.inserted == 15 && products.rejected == 5 && products.isBalanced)
        #expect(report.steps[2].counts.inserted == 2 && report.steps[2].counts.updated == 4)
        #expect(report.steps[5].counts.deleted == 1)
        #expect(report.steps.allSatisfy { $0.kind != "import" || $0.counts.isBalanced })

        let out = folder.appendingPathComponent("out/demo")
        let store = out.appendingPathComponent("catalog.sqlite")
        #expect(try Self.rows(store, "SELECT count(*) FROM Product") == [[.integer(16)]])
        #expect(
            try Self.rows(
                store, "SELECT c.name, p.name FROM Category c JOIN Category p ON p._pk = c.parent ORDER BY c.name")
                == [
                    [.text("Coffee"), .text("Beverages")], [.text("Pâtisserie"), .text("Bakery")],
                    [.text("Tea"), .text("Beverages")], [.text("Électroménager"), .text("Kitchen")],
                ])
        // Updates changed only what they gave: SKU-0001 keeps its name, gets the new price and joined tags.
        #expect(
            try Self.rows(store, "SELECT name, price, quantity, tags FROM Product WHERE sku = 'SKU-0001'") == [
                [.text("Espresso Beans 1kg"), .text("25.9"), .integer(110), .text("coffee;beans;bestseller")]
            ])
        // Photos above 128 KiB live in files, one per distinct image.
        #expect(try Self.rows(store, "SELECT count(*) FROM Product WHERE typeof(photo) = 'text'") == [[.integer(3)]])
        let blobs = try FileManager.default.subpathsOfDirectory(atPath: store.path + "-blobs").filter { $0.count > 3 }
        #expect(blobs.count == 3)

        let rejects = try String(contentsOf: out.appendingPathComponent("products.rejects.csv"), encoding: .utf8)
        #expect(rejects.split(separator: "\n").count == 6)
        #expect(rejects.contains("SKU-19,Tea Sampler") && rejects.contains("must match the regular expression"))
        let csv = try String(contentsOf: out.appendingPathComponent("products.csv"), encoding: .utf8)
        #expect(
            csv.hasPrefix("sku,name,category.name,price,quantity,active,tags\nSKU-0001,Espresso Beans 1kg,Coffee,25.9,")
        )
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("products.csv.manifest.json").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("snapshot/catalog.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("premium.ndjson").path))
    }

    @Test func theNightlyPipelineSyncsTheFeedAndExportsOnlyWhatChanged() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try ferry.run(["run", "Pipelines/nightly.yml", "--json"], in: folder)
        #expect(first.status == 0, "\(first.standardError)")
        let again = try JSONDecoder().decode(
            PipelineReport.self,
            from: Data(try ferry.run(["run", "Pipelines/nightly.yml", "--json"], in: folder).standardOutput.utf8))
        #expect(again.steps[1].counts.unchanged == 15 && again.steps[1].counts.inserted == 0)
        #expect(again.steps[2].counts.read == 0)
        // Each night keeps its own snapshot, named after its date and run.
        let snapshots = folder.appendingPathComponent("out/nightly/snapshots")
        let againRun = try #require(again.run)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: snapshots.path).sorted().last?
                .hasSuffix("-run\(againRun)") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: snapshots.path).count == 2)

        // Tonight's feed lost two products and changed one price.
        let feed = folder.appendingPathComponent("SampleData/products.csv")
        var lines = try String(contentsOf: feed, encoding: .utf8).components(separatedBy: "\n")
        lines.removeAll { $0.hasPrefix("SKU-0010,") || $0.hasPrefix("SKU-0011,") }
        lines = lines.map { $0.hasPrefix("SKU-0003,") ? $0.replacingOccurrences(of: ",8.75,", with: ",9.25,") : $0 }
        try Data(lines.joined(separator: "\n").utf8).write(to: feed)
        let tonight = try ferry.run(["run", "Pipelines/nightly.yml", "--json"], in: folder)
        #expect(tonight.status == 0, "\(tonight.standardError)")
        let report = try JSONDecoder().decode(PipelineReport.self, from: Data(tonight.standardOutput.utf8))
        #expect(report.steps[1].counts.deleted == 2 && report.steps[1].counts.updated == 1)
        let changes = try String(
            contentsOf: folder.appendingPathComponent("out/nightly/products-changed.ndjson"), encoding: .utf8)
        #expect(changes.split(separator: "\n").count == 1 && changes.contains("\"SKU-0003\""))
        let manifest = try String(
            contentsOf: folder.appendingPathComponent("out/nightly/products-changed.ndjson.manifest.json"),
            encoding: .utf8)
        #expect(manifest.contains("SKU-0010") && manifest.contains("SKU-0011"))

        // A truncated feed trips the guard: exit 65, nothing deleted.
        try Data(lines.prefix(4).joined(separator: "\n").utf8).write(to: feed)
        let truncated = try ferry.run(["run", "Pipelines/nightly.yml"], in: folder)
        #expect(truncated.status == 65)
        #expect(truncated.standardError.contains("more than the guard allows (20%)"))
        let store = folder.appendingPathComponent("out/nightly/catalog.sqlite")
        #expect(try Self.rows(store, "SELECT count(*) FROM Product") == [[.integer(13)]])
        // The failed night shows as failed, at its step, in the ledger that ferry inspect reads.
        #expect(
            try Self.rows(
                store,
                "SELECT pipeline, kind, status FROM ferry_runs "
                    + "WHERE id >= (SELECT max(id) FROM ferry_runs WHERE kind = 'pipeline') ORDER BY id") == [
                    [.text("nightly.yml"), .text("pipeline"), .text("failed")],
                    [.text("nightly.yml: categories"), .text("import"), .text("succeeded")],
                    [.text("nightly.yml: products"), .text("import"), .text("failed")],
                ])
    }

    /// The README's quick start, command by command.
    @Test func theQuickStartTakesACSVFileToANightlyRun() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = "out/quickstart/products.sqlite"
        let load = try ferry.run(
            ["import", "SampleData/products.csv", "--store", store, "--entity", "Product", "--key", "sku"], in: folder)
        #expect(load.status == 0, "\(load.standardError)")
        #expect(try ferry.run(["schema", "--store", store], in: folder).standardOutput.contains("  Product:\n"))
        #expect(try ferry.run(["validate", "Pipelines/quickstart.yml"], in: folder).status == 0)
        var runs: [Int64] = []
        for _ in 1...2 {
            let night = try ferry.run(["run", "Pipelines/quickstart.yml", "--json"], in: folder)
            #expect(night.status == 0, "\(night.standardError)")
            let report = try JSONDecoder().decode(PipelineReport.self, from: Data(night.standardOutput.utf8))
            #expect(report.steps.first?.counts.read == 20)
            runs.append(try #require(report.run))
        }
        let snapshots = try FileManager.default.contentsOfDirectory(
            atPath: folder.appendingPathComponent("out/quickstart/snapshots").path)
        #expect(
            Set(snapshots.compactMap { $0.split(separator: "-").last.map(String.init) }) == Set(runs.map { "run\($0)" })
        )
        let exports = try FileManager.default.contentsOfDirectory(
            atPath: folder.appendingPathComponent("out/quickstart/exports").path)
        #expect(exports.filter { $0.hasSuffix(".csv") }.count == 1)
        #expect(try ferry.run(["inspect", "--store", store], in: folder).standardOutput.contains("quickstart.yml"))
    }

    @Test func aNightlySnapshotStepKeepsTheNewestNightsAndAFailedStepShowsInInspect() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = folder.appendingPathComponent("Pipelines/snapshots.yml")
        try Data(
            """
            store: ../out/nights/catalog.sqlite
            model: catalog.model.yml
            steps:
              - import: { name: categories, source: ../SampleData/categories.csv, entity: Category, key: name,
                          fields: { name: name, description: description } }
              - snapshot: { to: "../out/nights/catalog-{date}-{run}", keep: 2 }
              - export: { entity: Category, to: "../out/nights/categories-{run}.csv", keep: 1 }
            """.utf8
        ).write(to: pipeline)
        var runs: [Int64] = []
        for _ in 1...3 {
            let night = try ferry.run(["run", "Pipelines/snapshots.yml", "--json"], in: folder)
            #expect(night.status == 0, "\(night.standardError)")
            runs.append(
                try #require(try JSONDecoder().decode(PipelineReport.self, from: Data(night.standardOutput.utf8)).run))
        }
        let out = folder.appendingPathComponent("out/nights")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).filter {
            !$0.hasPrefix("catalog.sqlite")
        }
        #expect(
            names.filter { $0.hasPrefix("catalog-") }.sorted().map { $0.split(separator: "-").last.map(String.init) }
                == [
                    "\(runs[1])", "\(runs[2])",
                ])
        #expect(
            Set(names.filter { $0.hasPrefix("categories-") }) == [
                "categories-\(runs[2]).csv", "categories-\(runs[2]).csv.manifest.json",
            ])

        // A night that fails at its snapshot (its folder holds something else) is a failed run and a failed step.
        let taken = out.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: taken.appendingPathComponent("notes.txt"))
        let template = try String(contentsOf: pipeline, encoding: .utf8)
        try Data(
            template.replacingOccurrences(
                of: "\"../out/nights/catalog-{date}-{run}\", keep: 2", with: "../out/nights/taken"
            )
            .utf8
        ).write(to: pipeline)
        let failed = try ferry.run(["run", "Pipelines/snapshots.yml"], in: folder)
        #expect(failed.status != 0)
        let inspect = try ferry.run(["inspect", "--store", out.appendingPathComponent("catalog.sqlite").path, "--json"])
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(inspect.standardOutput.utf8)) as? [String: Any])
        let latest = (report["runs"] as? [[String: Any]] ?? []).prefix(3).map {
            [$0["pipeline"] as? String, $0["kind"] as? String, $0["status"] as? String]
        }
        #expect(
            latest == [
                ["snapshots.yml: snapshot", "snapshot", "failed"],
                ["snapshots.yml: categories", "import", "succeeded"],
                ["snapshots.yml", "pipeline", "failed"],
            ])
    }

    @Test func aDryRunReportsWhatWouldChangeAndKeepsNothing() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("out/demo/catalog.sqlite")
        #expect(try ferry.run(["run", "Pipelines/demo.yml", "-q"], in: folder).status == 0)
        let before = try Self.rows(store, "SELECT count(*), (SELECT count(*) FROM ferry_runs) FROM Product")
        let csv = try Data(contentsOf: folder.appendingPathComponent("out/demo/products.csv"))

        let dry = try ferry.run(["run", "Pipelines/demo.yml", "--dry-run", "--json"], in: folder)

        #expect(dry.status == 0, "\(dry.standardError)")
        let report = try JSONDecoder().decode(PipelineReport.self, from: Data(dry.standardOutput.utf8))
        // SKU-0015 was deleted by the first run; the feed brings it back. The four products the updates step
        // changed differ from the feed: store-trump keeps them, and says so.
        #expect(report.steps[1].counts.inserted == 1 && report.steps[1].counts.unchanged == 10)
        #expect(report.steps[1].counts.kept == 4)
        #expect(try Self.rows(store, "SELECT count(*), (SELECT count(*) FROM ferry_runs) FROM Product") == before)
        #expect(try Data(contentsOf: folder.appendingPathComponent("out/demo/products.csv")) == csv)
        #expect(!report.store.hasPrefix(folder.path))
    }

    @Test func aSecondRunOfTheSameInputsChangesNothingItHasAlreadyDone() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        let arguments = [
            "import", "SampleData/products.csv", "--store", store, "--model", "Pipelines/catalog.model.yml",
            "--entity", "Product", "--relationship", "category=Category.name", "--create-missing", "--blob", "photo",
            "--json",
        ]
        #expect(try ferry.run(arguments, in: folder).status == 0)
        let again = try ferry.run(arguments, in: folder)
        #expect(again.status == 0)
        let result = try JSONDecoder().decode(ImportResult.self, from: Data(again.standardOutput.utf8))
        #expect(result.counts.read == 20 && result.counts.inserted == 0 && result.counts.updated == 0)
        #expect(result.counts.unchanged == 15 && result.counts.rejected == 5)
    }

    @Test func validateListsEveryProblemWithFileLineAndKeyPathAndExits78() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = folder.appendingPathComponent("Pipelines/broken.yml")
        try Data(
            """
            store: ../out/broken.sqlite
            model: catalog.model.yml
            steps:
              - import:
                  source: ../SampleData/products.csv
                  entity: Product
                  mode: fast
                  chunkSize: 0
              - export: { entity: Product, to: ../out/x.txt }
              - import:
                  source: ../SampleData/products.csv
                  entity: Produce
            """.utf8
        ).write(to: pipeline)

        let result = try ferry.run(["validate", "Pipelines/broken.yml"], in: folder)

        #expect(result.status == 78)
        #expect(
            result.standardError.contains("broken.yml:7: steps[0].import.mode: expected batch or context, found 'fast'")
        )
        #expect(
            result.standardError.contains(
                "broken.yml:8: steps[0].import.chunkSize: expected a whole number of at least 1"))
        #expect(
            result.standardError.contains(
                "broken.yml:9: steps[1].export.to: cannot tell the format from '../out/x.txt'"))

        try Data(
            """
            store: ../out/broken.sqlite
            model: catalog.model.yml
            steps:
              - import:
                  source: ../SampleData/products.csv
                  entity: Produce
            """.utf8
        ).write(to: pipeline)
        let semantic = try ferry.run(["validate", "Pipelines/broken.yml"], in: folder)
        #expect(semantic.status == 78)
        #expect(semantic.standardError.contains("broken.yml:4: steps[0].import: the model has no entity 'Produce'"))
        #expect(try ferry.run(["validate", "Pipelines/demo.yml"], in: folder).status == 0)
        #expect(try ferry.run(["validate", "Pipelines/catalog.model.yml"], in: folder).status == 0)
    }

    @Test func aSecondRunOnALockedStoreExits75NamingTheHolder() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        let lock = try StoreLock(storePath: store)

        let result = try ferry.run(
            ["import", "SampleData/products.csv", "--store", store, "--entity", "Product", "--key", "sku"], in: folder)

        #expect(result.status == 75)
        #expect(result.standardError.contains("the store is in use by pid \(getpid())"))
        withExtendedLifetime(lock) {}
    }

    @Test func inputAndModelProblemsHaveTheirExitCodes() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        let missing = try ferry.run(
            ["import", "SampleData/nope.csv", "--store", store, "--entity", "Product", "--key", "sku"], in: folder)
        #expect(missing.status == 66)
        let badModel = try ferry.run(
            [
                "import", "SampleData/products.csv", "--store", store, "--model", "SampleData/products.csv",
                "--entity", "Product",
            ], in: folder)
        #expect(badModel.status == 78)
        // Without a key the records are appended (keyless data), but a full sync must match them to rows.
        let noKey = try ferry.run(
            ["import", "SampleData/products.csv", "--store", store, "--entity", "Product", "--full-sync"], in: folder)
        #expect(noKey.status == 78)
        #expect(noKey.standardError.contains("needs --key"))
    }

    @Test func aMistakeInALaterStepFailsTheRunBeforeItsFirstStepWrites() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let steps = [
            "  - batchUpdate: { entity: Category, where: \"nmae == 'Tea'\", set: { description: x } }",
            "  - batchUpdate: { entity: Category, set: { description: \"= nmae\" } }",
            "  - batchDelete: { entity: Category, where: \"name > 3\" }",
            "  - export: { entity: Category, sort: \"-nmae\", to: ../out/late/c.csv }",
            "  - export: { entity: Category, fields: [parent.nmae], to: ../out/late/d.csv }",
            "  - export: { entity: Category, to: ../SampleData/products.csv/c.csv }",
        ]
        for (index, step) in steps.enumerated() {
            try Data(
                """
                store: ../out/late/catalog-\(index).sqlite
                model: catalog.model.yml
                steps:
                  - import: { name: categories, source: ../SampleData/categories.csv, entity: Category, key: name,
                              fields: { name: name, description: description } }
                \(step)
                """.utf8
            ).write(to: folder.appendingPathComponent("Pipelines/late.yml"))
            #expect(try ferry.run(["validate", "Pipelines/late.yml"], in: folder).status == 78, "\(step)")
            let run = try ferry.run(["run", "Pipelines/late.yml"], in: folder)
            #expect(run.status == 78, "\(step): \(run.standardError)")
            let store = folder.appendingPathComponent("out/late/catalog-\(index).sqlite")
            let tables = try Self.rows(store, "SELECT count(*) FROM sqlite_master WHERE name = 'Category'")
            if tables == [[.integer(1)]] {
                #expect(try Self.rows(store, "SELECT count(*) FROM Category") == [[.integer(0)]], "\(step)")
            }
        }
    }

    @Test func anOutputFolderThatIsNotThereYetIsMadeByTheRun() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            """
            store: ../out/fresh/catalog.sqlite
            model: catalog.model.yml
            steps:
              - import: { name: categories, source: ../SampleData/categories.csv, entity: Category, key: name,
                          fields: { name: name, description: description } }
              - export: { entity: Category, to: ../out/fresh/exports/daily/categories.csv }
              - snapshot: { to: ../out/fresh/snapshots/first }
            """.utf8
        ).write(to: folder.appendingPathComponent("Pipelines/fresh.yml"))
        let run = try ferry.run(["run", "Pipelines/fresh.yml"], in: folder)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            FileManager.default.fileExists(
                atPath: folder.appendingPathComponent("out/fresh/exports/daily/categories.csv").path))
        #expect(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/fresh/snapshots/first").path))
    }

    @Test func oneMistakeHasOneExitCodeWhateverCommandMakesIt() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A missing input is 66, in a pipeline as in ferry import.
        let demo = folder.appendingPathComponent("Pipelines/demo.yml")
        let text = try String(contentsOf: demo, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "../SampleData/categories.csv", with: "../SampleData/nope.csv").utf8)
            .write(to: folder.appendingPathComponent("Pipelines/missing.yml"))
        #expect(try ferry.run(["run", "Pipelines/missing.yml"], in: folder).status == 66)
        #expect(try ferry.run(["validate", "Pipelines/missing.yml"], in: folder).status == 66)

        // An entity the model lacks, named on the command line, is a usage error for import as for export.
        #expect(try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder).status == 0)
        let store = "out/demo/catalog.sqlite"
        let importing = try ferry.run(
            ["import", "SampleData/products.csv", "--store", store, "--entity", "Produce"], in: folder)
        #expect(importing.status == 64)
        #expect(importing.standardError.contains("no entity 'Produce'"))
        #expect(try ferry.run(["export", "--store", store, "--entity", "Produce"], in: folder).status == 64)
    }

    @Test func anInferredModelKeepsHeadersAndIdentifiersAsWrittenAndRejectsWhatDoesNotFitLater() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try TestSupport.write(
            Array("code,unit price,count,added\n00123,1.50,3,2026-01-01\n00124,2.25,4,2026-01-02\n".utf8),
            to: "first.csv", in: folder)
        let later = try TestSupport.write(
            Array("code,unit price,count,added\n00125,cheap,5,2026-01-03\n00126,3.00,6,2026-01-04\n".utf8),
            to: "later.csv", in: folder)
        let store = folder.appendingPathComponent("inferred.sqlite")
        #expect(
            try ferry.run(["import", first, "--store", store.path, "--entity", "Item", "--key", "code"]).status == 0)

        let result = try ferry.run(["import", later, "--store", store.path, "--entity", "Item", "--json"])

        #expect(result.status == 0)
        #expect(
            try Self.rows(store, "SELECT code, \"unit price\", count, typeof(added) FROM Item ORDER BY code") == [
                [.text("00123"), .real(1.5), .integer(3), .text("real")],
                [.text("00124"), .real(2.25), .integer(4), .text("real")],
                [.text("00126"), .real(3), .integer(6), .text("real")],
            ])
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.counts.rejected == 1 && report.counts.inserted == 1)
    }
}
