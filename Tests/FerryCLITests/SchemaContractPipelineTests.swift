import FerryPipeline
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// Schema contracts on a pipeline's import steps (`schema:`), through `ferry run` on the built binary, with CSV and
/// NDJSON inputs, into a store made from a first file (see ``SchemaContractImportTests``).
struct SchemaContractPipelineTests {
    let ferry = BuiltCommand(product: "ferry")

    /// Writes `nightly.yml`: an import of `second.<format>` into Product with `schema` (none when `nil`), after an
    /// import of `extra.<format>` (one new product, Z9) when `extraFirst`.
    private func writePipeline(format: String, schema: String?, extraFirst: Bool = false, in folder: URL) throws {
        var steps: [String] = []
        if extraFirst {
            let extra =
                format == "csv" ? "sku,name\nZ9,Zucchini\n" : #"{"sku": "Z9", "name": "Zucchini"}"# + "\n"
            try Data(extra.utf8).write(to: folder.appendingPathComponent("extra.\(format)"))
            steps.append("  - import: { name: extra, source: extra.\(format), entity: Product }")
        }
        steps.append(
            "  - import: { name: second, source: second.\(format), entity: Product, mergePolicy: objectTrump, "
                + "rejects: rejects.\(format)" + (schema.map { ", schema: \($0)" } ?? "") + " }")
        try Data(("store: s.sqlite\nsteps:\n" + steps.joined(separator: "\n") + "\n").utf8)
            .write(to: folder.appendingPathComponent("nightly.yml"))
    }

    private func secondStep(_ result: BuiltCommand.Result) throws -> PipelineReport.Step? {
        let report = try JSONDecoder().decode(PipelineReport.self, from: Data(result.standardOutput.utf8))
        return report.steps.first { $0.name == "second" }
    }

    @Test(arguments: ["csv", "ndjson"])
    func anEvolveStepAddsTheColumnsInOneModelVersionBeforeWritingAndTheNextRunIsClean(format: String) throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SchemaContractImportTests.makeStore(format: format, in: folder)
        try writePipeline(format: format, schema: "evolve", in: folder)
        let store = folder.appendingPathComponent("s.sqlite")

        let first = try ferry.run(["run", "nightly.yml", "--json"], in: folder)
        let second = try ferry.run(["run", "nightly.yml", "--json"], in: folder)

        #expect(first.status == 0, "\(first.standardError)")
        let evolved = try secondStep(first)
        #expect(evolved?.counts.inserted == 1 && evolved?.counts.updated == 2 && evolved?.unreadColumns == nil)
        #expect(
            try PipelineCommandTests.rows(store, "SELECT sku, color, weight FROM Product ORDER BY sku")
                == [
                    [.text("A1"), .text("red"), .integer(120)], [.text("B2"), .null, .integer(118)],
                    [.text("C3"), .text("dark red"), .null],
                ])
        let history = try ModelHistory.read(at: store.path)
        #expect(history.entries.map(\.kind) == ["created", "migrated"])
        #expect(history.entries.last?.appliedBy == "ferry run nightly.yml (schema: evolve)")
        #expect(second.status == 0, "\(second.standardError)")
        let clean = try secondStep(second)
        #expect(clean?.counts.unchanged == 3 && clean?.counts.read == 3 && clean?.unreadColumns == nil)
        #expect(try ModelHistory.read(at: store.path).entries.count == 2)
    }

    @Test func aDryRunEvolvesOnlyTheCopyOfTheStore() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SchemaContractImportTests.makeStore(format: "csv", in: folder)
        try writePipeline(format: "csv", schema: "evolve", in: folder)
        let store = folder.appendingPathComponent("s.sqlite")

        let result = try ferry.run(["run", "nightly.yml", "--dry-run", "--json"], in: folder)

        #expect(result.status == 0, "\(result.standardError)")
        #expect(try secondStep(result)?.counts.inserted == 1)
        #expect(try ModelHistory.read(at: store.path).entries.count == 1)
        #expect(
            try SchemaContractImportTests.columns(of: "Product", in: store) == ["_pk", "_ent", "_opt", "sku", "name"])
    }

    @Test(arguments: ["csv", "ndjson"])
    func aFreezeStepFailsTheRunBeforeAnyStepWritesNamingTheNewColumns(format: String) throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SchemaContractImportTests.makeStore(format: format, in: folder)
        try writePipeline(format: format, schema: "freeze", extraFirst: true, in: folder)
        let store = folder.appendingPathComponent("s.sqlite")

        let result = try ferry.run(["run", "nightly.yml"], in: folder)

        #expect(result.status == 65, "\(result.standardError)")
        #expect(result.standardError.contains("new columns: 'color' (in "), "\(result.standardError)")
        #expect(result.standardError.contains("'weight' (in "))
        #expect(result.standardError.contains("schema: evolve in a pipeline file"))
        // The first step, before the frozen one, wrote nothing either.
        #expect(
            try PipelineCommandTests.rows(store, "SELECT sku FROM Product ORDER BY sku") == [
                [.text("A1")], [.text("B2")],
            ])
    }

    @Test(arguments: ["csv", "ndjson"])
    func aStepWithoutSchemaDiscardsTheNewColumnsAndTheReportListsAndCountsThem(format: String) throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SchemaContractImportTests.makeStore(format: format, in: folder)
        try writePipeline(format: format, schema: nil, in: folder)
        let store = folder.appendingPathComponent("s.sqlite")

        let json = try ferry.run(["run", "nightly.yml", "--json"], in: folder)
        let table = try ferry.run(["run", "nightly.yml"], in: folder)

        #expect(json.status == 0, "\(json.standardError)")
        let step = try secondStep(json)
        #expect(step?.unreadColumns == ["color", "weight"] && step?.discardedColumns == 2)
        #expect(step?.counts.inserted == 1 && step?.counts.rejected == 0)
        #expect(table.standardError.contains("unread columns: color, weight (2 new to Product, discarded"))
        #expect(
            try SchemaContractImportTests.columns(of: "Product", in: store) == ["_pk", "_ent", "_opt", "sku", "name"])
    }

    @Test(arguments: ["csv", "ndjson"])
    func aDiscardRowsStepRejectsTheRecordsGivingANewColumnAValueIntoItsRejects(format: String) throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SchemaContractImportTests.makeStore(format: format, in: folder)
        try writePipeline(format: format, schema: "discard-rows", in: folder)
        let store = folder.appendingPathComponent("s.sqlite")

        let result = try ferry.run(["run", "nightly.yml", "--json"], in: folder)

        #expect(result.status == 0, "\(result.standardError)")
        let step = try secondStep(result)
        #expect(step?.counts.read == 3 && step?.counts.rejected == 3 && step?.unreadColumns == ["color", "weight"])
        #expect(try PipelineCommandTests.rows(store, "SELECT count(*) FROM Product") == [[.integer(2)]])
        let rejects = try String(contentsOf: folder.appendingPathComponent("rejects.\(format)"), encoding: .utf8)
        #expect(rejects.contains("column 'weight' is new to Product (schema: discard-rows"), "\(rejects)")
        // The ledger keeps them too.
        #expect(
            try PipelineCommandTests.rows(
                store, "SELECT count(*) FROM ferry_rejects WHERE reason LIKE '%is new to Product%'")
                == [[.integer(3)]])
    }

    @Test func anEvolveStepInAPipelineWithAModelFileIsAnInvalidPipeline() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SchemaContractFiles.write(format: "csv", in: folder)
        try Data("entities:\n  Product:\n    attributes: { sku: string }\n".utf8)
            .write(to: folder.appendingPathComponent("model.yml"))
        try Data(
            "store: s.sqlite\nmodel: model.yml\nsteps:\n  - import: { source: second.csv, entity: Product, schema: evolve }\n"
                .utf8
        ).write(to: folder.appendingPathComponent("nightly.yml"))

        let result = try ferry.run(["run", "nightly.yml"], in: folder)

        #expect(result.status == 78, "\(result.standardError)")
        #expect(result.standardError.contains("steps[0].import.schema"), "\(result.standardError)")
        #expect(result.standardError.contains("add the new columns to the model file"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("s.sqlite").path))
    }
}
