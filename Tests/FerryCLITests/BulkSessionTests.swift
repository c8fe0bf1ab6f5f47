import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// A Swift program that uses FerryPipeline's public API alone (``BulkSession``) runs a pipeline as `ferry run` does:
/// the same steps and counts, the same rows, the same exports, and the same refusal of a second run on the store.
struct BulkSessionTests {
    let ferry = BuiltCommand(product: "ferry")

    /// Every table of the demo's entities, row by row, without the columns a run fills with its own times.
    static func contents(of store: URL) throws -> [String: [[SQLiteValue]]] {
        var tables: [String: [[SQLiteValue]]] = [:]
        for table in ["Category", "Product", "Order"] {
            tables[table] = try PipelineCommandTests.rows(store, "SELECT * FROM \"\(table)\" ORDER BY _pk")
        }
        return tables
    }

    @Test func aSwiftProgramRunsTheDemoPipelineWithTheSameResultAsFerryRun() async throws {
        let byCommand = try PipelineCommandTests.workspace()
        let byLibrary = try PipelineCommandTests.workspace()
        defer {
            try? FileManager.default.removeItem(at: byCommand)
            try? FileManager.default.removeItem(at: byLibrary)
        }

        let command = try ferry.run(["run", "Pipelines/demo.yml", "--json"], in: byCommand)
        let file = try PipelineFileParser.parse(
            contentsOf: byLibrary.appendingPathComponent("Pipelines/demo.yml").path)
        let report = try await BulkSession.run(file)

        #expect(command.status == 0, "\(command.standardError)")
        let commandReport = try JSONDecoder().decode(PipelineReport.self, from: Data(command.standardOutput.utf8))
        #expect(report.status == "succeeded")
        #expect(report.steps.map(\.name) == commandReport.steps.map(\.name))
        #expect(report.steps.map(\.counts) == commandReport.steps.map(\.counts))
        // The outputs are the same bytes, once each workspace's own folder (in the rejects' `_file`) is set aside.
        func output(_ name: String, in workspace: URL) throws -> String {
            try String(contentsOf: workspace.appendingPathComponent("out/demo/" + name), encoding: .utf8)
                .replacingOccurrences(of: workspace.path, with: "WORKSPACE")
        }
        for name in ["products.csv", "premium.ndjson", "products.rejects.csv"] {
            #expect(try output(name, in: byLibrary) == output(name, in: byCommand), "\(name)")
        }
        let store = "out/demo/catalog.sqlite"
        #expect(
            try Self.contents(of: byLibrary.appendingPathComponent(store))
                == Self.contents(of: byCommand.appendingPathComponent(store)))
    }

    @Test func aSessionHoldsTheStoreAgainstAnotherRunUntilItEnds() async throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("out/demo/catalog.sqlite").path
        var session: BulkSession? = try await BulkSession.open(
            storePath: store, model: folder.appendingPathComponent("Pipelines/catalog.model.yml").path)

        let refused = try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder)
        _ = session
        session = nil
        let afterwards = try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder)

        #expect(refused.status == 75 && refused.standardError.contains("in use by pid"), "\(refused.standardError)")
        #expect(afterwards.status == 0, "\(afterwards.standardError)")
    }
}
