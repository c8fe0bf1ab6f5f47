import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// Each exit code from the built binary for the failures that mean it: usage 64, data 65, input missing 66, I/O 74,
/// locked 75, configuration 78, stopped 130; and model problems SQLite would only find when creating the store are
/// refused as configuration before anything is written.
@Suite(.serialized)
struct ExitCodeTests {
    let ferry = BuiltCommand(product: "ferry")

    /// A folder with a small catalog: categories (unique by name, with a non-unique `kind`) and products.
    static func workspace() throws -> URL {
        let folder = try TestSupport.makeTemporaryFolder()
        let files = [
            "catalog.model.yml": """
            entities:
              Category:
                attributes:
                  name: string
                  kind: string
                relationships:
                  products: { to: Product, toMany: true, inverse: category }
                uniquenessConstraints: [[name]]
              Product:
                attributes:
                  sku: { type: string, optional: false }
                  name: { type: string, optional: false }
                  quantity: { type: integer32 }
                relationships:
                  category: { to: Category, inverse: products }
                uniquenessConstraints: [[sku]]
            """,
            "categories.csv": "name,kind\nCoffee,drink\nTea,drink\n",
            "products.csv": "sku,name,quantity,category\nA-1,Espresso,5,Coffee\nA-2,Latte,0,Coffee\nB-1,Assam,3,Tea\n",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    /// A pipeline importing both files into `store.sqlite`, then `steps` (YAML list items).
    static func pipeline(relationshipBy by: String = "name", steps: String = "") -> String {
        """
        store: store.sqlite
        model: catalog.model.yml
        steps:
          - import: { source: categories.csv, entity: Category, key: name }
          - import:
              source: products.csv
              entity: Product
              key: sku
              relationships: { category: { entity: Category, by: \(by) } }
        \(steps)
        """
    }

    func write(_ text: String, _ name: String, in folder: URL) throws {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }

    @Test func usageErrorsExitWith64() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let overwrite = try ferry.run(
            [
                "import", "products.csv", "--store", "s.sqlite", "--model", "catalog.model.yml", "--entity", "Product",
                "--key", "sku", "--mode", "batch", "--merge-policy", "overwrite",
            ], in: folder)
        #expect(overwrite.status == 64, "\(overwrite.standardError)")
        #expect(overwrite.standardError.contains("--mode context"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("s.sqlite").path))

        let arguments = [
            "import", "categories.csv", "--store", "s.sqlite", "--model", "catalog.model.yml", "--entity", "Category",
            "--key", "name", "--quiet",
        ]
        #expect(try ferry.run(arguments, in: folder).status == 0)
        let resume = try ferry.run(arguments + ["--resume"], in: folder)
        #expect(resume.status == 64 && resume.standardError.contains("nothing to resume"), "\(resume.standardError)")
    }

    @Test func batchModeWithTheOverwritePolicyInAPipelineIsAConfigurationError() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(
            """
            store: store.sqlite
            model: catalog.model.yml
            steps:
              - import: { source: categories.csv, entity: Category, key: name, mode: batch, mergePolicy: overwrite }
            """, "overwrite.yml", in: folder)
        let validate = try ferry.run(["validate", "overwrite.yml"], in: folder)
        #expect(validate.status == 78 && validate.standardError.contains("context mode"), "\(validate.standardError)")
    }

    @Test func dataErrorsExitWith65AndABatchUpdateBreakingARuleWritesNothing() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write("a,b\n1,\"x\n", "bad.csv", in: folder)
        #expect(try ferry.run(["count", "bad.csv"], in: folder).status == 65)

        // 5 × 10⁹ does not fit the integer32 quantity.
        try write(
            Self.pipeline(
                steps: """
                      - batchUpdate: { entity: Product, set: { quantity: "= quantity * 1000000000" } }
                    """), "overflow.yml", in: folder)
        let run = try ferry.run(["run", "overflow.yml"], in: folder)
        #expect(run.status == 65, "\(run.standardError)")
        #expect(run.standardError.contains("quantity"), "\(run.standardError)")
        let store = folder.appendingPathComponent("store.sqlite").path
        let rows = try Connection(path: store, mode: .readOnly).prepare(
            "SELECT quantity, _opt FROM Product ORDER BY sku"
        )
        .fetchAll().map(\.values)
        #expect(rows == [[.integer(5), .integer(1)], [.integer(0), .integer(1)], [.integer(3), .integer(1)]])
    }

    @Test func aMissingInputExitsWith66() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ferry.run(["count", "missing.csv"], in: folder).status == 66)
    }

    @Test func aFullDiskExitsWith74() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(String(repeating: "x,y\n", count: 2000), "big.csv", in: folder)
        let full = try ferry.runWithFileSizeLimit(kibibytes: 2, ["convert", "big.csv", "big.ndjson"], in: folder)
        #expect(full.status == 74, "\(full.standardError)")
    }

    @Test func aStoreHeldByAnotherRunExitsWith75() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.pipeline(), "catalog.yml", in: folder)
        let lock = try StoreLock(storePath: folder.appendingPathComponent("store.sqlite").path)
        let run = try ferry.run(["run", "catalog.yml"], in: folder)
        #expect(run.status == 75, "\(run.standardError)")
        withExtendedLifetime(lock) {}
    }

    @Test func aRelationshipResolvedByAnAttributeThatIsNotUniqueIsAConfigurationError() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.pipeline(relationshipBy: "kind"), "by-kind.yml", in: folder)
        for command in ["validate", "run"] {
            let result = try ferry.run([command, "by-kind.yml"], in: folder)
            #expect(result.status == 78, "\(command): \(result.standardError)")
            #expect(result.standardError.contains("'kind' is not unique in Category"), "\(result.standardError)")
        }
        // No step ran: the store `run` opened holds nothing.
        let store = folder.appendingPathComponent("store.sqlite").path
        if try StoreProbe.hasTable(store, "Category") {
            #expect(try StoreProbe.rows(store, "SELECT count(*) FROM Category").first?[0].integer == 0)
        }
        try write(Self.pipeline(), "by-name.yml", in: folder)
        #expect(try ferry.run(["validate", "by-name.yml"], in: folder).status == 0)
    }

    @Test func aBatchUpdateSettingANonOptionalAttributeToNilIsAConfigurationError() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(
            Self.pipeline(
                steps: """
                      - batchUpdate: { entity: Product, set: { name: "= nil" } }
                    """), "nil.yml", in: folder)
        let result = try ferry.run(["validate", "nil.yml"], in: folder)
        #expect(result.status == 78, "\(result.standardError)")
        #expect(result.standardError.contains("Product.name is not optional"), "\(result.standardError)")
    }

    @Test func modelsSQLiteCannotCreateAreConfigurationErrorsBeforeAnythingIsWritten() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        // An entity named like another's uniqueness index.
        try write(
            """
            entities:
              A:
                attributes: { id: integer64, b: string }
                uniquenessConstraints: [[id], [b]]
              A_unique_b:
                attributes: { id: integer64 }
            """, "collide.model.yml", in: folder)
        try write("id,b\n1,x\n", "a.csv", in: folder)
        let validate = try ferry.run(["validate", "collide.model.yml"], in: folder)
        #expect(validate.status == 78 && validate.standardError.contains("A_unique_b"), "\(validate.standardError)")
        let collide = try ferry.run(
            ["import", "a.csv", "--store", "c.sqlite", "--model", "collide.model.yml", "--entity", "A", "--key", "id"],
            in: folder)
        #expect(collide.status == 78, "\(collide.standardError)")

        // More columns than SQLite allows in a table, from a new store's inferred model.
        let header = (0..<2100).map { "c\($0)" }.joined(separator: ",")
        try write(
            header + "\n" + Array(repeating: "1", count: 2100).joined(separator: ",") + "\n", "wide.csv", in: folder)
        let wide = try ferry.run(
            ["import", "wide.csv", "--store", "w.sqlite", "--entity", "W", "--key", "c0"], in: folder)
        #expect(wide.status == 78 && wide.standardError.contains("at most 2000"), "\(wide.standardError.prefix(300))")

        // A name longer than a model file can keep: 1,024 characters work, 1,025 are refused.
        for (length, status) in [(1024, Int32(0)), (1025, 78)] {
            let name = String(repeating: "n", count: length)
            try write("id,\(name)\n1,2\n", "long.csv", in: folder)
            let store = "long-\(length).sqlite"
            let result = try ferry.run(
                ["import", "long.csv", "--store", store, "--entity", "L", "--key", "id", "--quiet"], in: folder)
            #expect(result.status == status, "\(length): \(result.standardError.prefix(300))")
            if status == 0 {
                let export = try ferry.run(["export", "--store", store, "--entity", "L", "--output", "-"], in: folder)
                #expect(export.status == 0 && export.standardOutput == "id,\(name)\n1,2\n", "\(export.standardError)")
            }
        }
    }

    @Test func aSecondSIGTERMStopsAtOnceWith130() throws {
        let folder = try CrashSafetyTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        // One chunk: the first signal's stop at a chunk boundary waits for the end, and the second comes before.
        let arguments = CrashSafetyTests.importArguments(
            store: "store.sqlite", mode: "context", chunk: CrashSafetyTests.records)
        // Wait until the run has its handlers installed: its ledger records it as running.
        let process = try ferry.start(arguments, in: folder)
        let store = folder.appendingPathComponent("store.sqlite").path
        while process.isRunning, (try? StoreProbe.latestRun(store)) == nil { Thread.sleep(forTimeInterval: 0.005) }
        kill(process.processIdentifier, SIGTERM)
        Thread.sleep(forTimeInterval: 0.05)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
    }
}
