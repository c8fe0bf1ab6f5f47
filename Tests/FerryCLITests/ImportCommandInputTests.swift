import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// `ferry import` options about reading its inputs, through the built binary: `--no-header`, `--blob-root`, and an
/// object of records without a model.
struct ImportCommandInputTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test func noHeaderImportsEveryRecordWithoutAModelNamingTheColumnsByPosition() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("1,Ada\n2,Grace\n3,Edsger\n".utf8).write(to: folder.appendingPathComponent("people.csv"))

        let result = try ferry.run(
            [
                "import", "people.csv", "--store", "people.sqlite", "--entity", "Person", "--key", "column1",
                "--no-header",
            ],
            in: folder)

        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            try PipelineCommandTests.rows(
                folder.appendingPathComponent("people.sqlite"), "SELECT column1, column2 FROM Person ORDER BY column1")
                == [[.integer(1), .text("Ada")], [.integer(2), .text("Grace")], [.integer(3), .text("Edsger")]])
        // The same file counts and converts alike.
        let count = try ferry.run(["count", "people.csv", "--no-header"], in: folder)
        #expect(count.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
    }

    @Test func noHeaderWithAModelMapsTheColumnsToItsAttributesInOrder() throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("Coffee\nTea\n".utf8).write(to: folder.appendingPathComponent("categories.csv"))

        let result = try ferry.run(
            [
                "import", "categories.csv", "--store", "store.sqlite", "--model", "Pipelines/catalog.model.yml",
                "--entity", "Category", "--no-header", "--json",
            ], in: folder)

        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.counts.read == 2 && report.counts.inserted == 2 && report.counts.rejected == 0)
        #expect(
            try PipelineCommandTests.rows(
                folder.appendingPathComponent("store.sqlite"), "SELECT name FROM Category ORDER BY name")
                == [[.text("Coffee")], [.text("Tea")]])
    }

    @Test func blobRootLetsABlobPathLeaveTheInputsFolder() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("inputs")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try Data("bytes".utf8).write(to: folder.appendingPathComponent("shared.bin"))
        try Data("id,photo\n1,../shared.bin\n".utf8).write(to: inputs.appendingPathComponent("items.csv"))
        try Data(
            "entities:\n  Item:\n    attributes:\n      id: integer64\n      photo: binary\n    uniquenessConstraints: [[id]]\n"
                .utf8
        ).write(to: folder.appendingPathComponent("model.yml"))
        let arguments = [
            "import", "inputs/items.csv", "--model", "model.yml", "--entity", "Item", "--blob", "photo", "--json",
        ]

        let confined = try ferry.run(arguments + ["--store", "a.sqlite"], in: folder)
        let allowed = try ferry.run(arguments + ["--store", "b.sqlite", "--blob-root", "."], in: folder)

        #expect(confined.status == 0 && allowed.status == 0, "\(confined.standardError) \(allowed.standardError)")
        let refused = try JSONDecoder().decode(ImportResult.self, from: Data(confined.standardOutput.utf8))
        let read = try JSONDecoder().decode(ImportResult.self, from: Data(allowed.standardOutput.utf8))
        #expect(refused.counts.rejected == 1 && read.counts.inserted == 1)
    }

    @Test func anObjectOfRecordsEntersANewStoreWithoutAModelKeyedByItsMemberNamesAndARerunChangesNothing() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"tea": {"price": 2}, "coffee": {"price": 3}}"#.utf8)
            .write(to: folder.appendingPathComponent("drinks.json"))
        let arguments = ["import", "drinks.json", "--store", "s.sqlite", "--entity", "Drink", "--json"]

        let first = try ferry.run(arguments, in: folder)
        let again = try ferry.run(arguments, in: folder)
        let named = try ferry.run(arguments + ["--key", "_key"], in: folder)
        let fresh = try ferry.run(
            ["import", "drinks.json", "--store", "k.sqlite", "--entity", "Drink", "--key", "key"], in: folder)

        #expect(first.status == 0, "\(first.standardError)")
        #expect(again.status == 0 && named.status == 0, "\(again.standardError) \(named.standardError)")
        #expect(fresh.status == 0, "\(fresh.standardError)")
        let inserted = try JSONDecoder().decode(ImportResult.self, from: Data(first.standardOutput.utf8))
        #expect(inserted.counts.inserted == 2 && inserted.counts.rejected == 0 && inserted.appended == nil)
        for rerun in [again, named] {
            let report = try JSONDecoder().decode(ImportResult.self, from: Data(rerun.standardOutput.utf8))
            #expect(report.counts.read == 2 && report.counts.inserted == 0 && report.counts.updated == 0)
            #expect(report.counts.rejected == 0)
        }
        for store in ["s.sqlite", "k.sqlite"] {
            #expect(
                try PipelineCommandTests.rows(
                    folder.appendingPathComponent(store), "SELECT key, price FROM Drink ORDER BY key")
                    == [[.text("coffee"), .integer(3)], [.text("tea"), .integer(2)]])
        }
        let schema = try ferry.run(["schema", "--store", "s.sqlite"], in: folder)
        #expect(schema.standardOutput.contains("uniquenessConstraints: [[key]]"), "\(schema.standardOutput)")
    }
}
