import FerryPipeline
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// Schema contracts on `ferry import`, through the built binary, with CSV and NDJSON inputs: a store made from a
/// first file, then a second file with new columns (`color`, `weight`) imported into the same entity.
struct SchemaContractImportTests {
    let ferry = BuiltCommand(product: "ferry")

    /// A folder holding `first.<format>` (sku, name) and `second.<format>` (sku, name, color, weight: A1 and B2 again,
    /// C3 new), and a store made from the first by `ferry import` (entity Product, key sku).
    static func makeStore(format: String, in folder: URL) throws {
        try SchemaContractFiles.write(format: format, in: folder)
        let made = try BuiltCommand(product: "ferry").run(
            ["import", "first.\(format)", "--store", "s.sqlite", "--entity", "Product", "--key", "sku"], in: folder)
        #expect(made.status == 0, "\(made.standardError)")
    }

    static func columns(of table: String, in store: URL) throws -> [String] {
        try PipelineCommandTests.rows(store, "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
            .compactMap { $0.first?.text }
    }

    @Test(arguments: ["csv", "ndjson"])
    func freezeIsTheDefaultIntoAnEntityThatExistsAndNamesEveryNewAndMissingColumn(format: String) throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.makeStore(format: format, in: folder)
        let store = folder.appendingPathComponent("s.sqlite")

        let frozen = try ferry.run(
            ["import", "second.\(format)", "--store", "s.sqlite", "--entity", "Product"], in: folder)
        let renamed = try ferry.run(
            ["import", "renamed.\(format)", "--store", "s.sqlite", "--entity", "Product", "--schema", "freeze"],
            in: folder)

        // Bad input data for the store's model: 65, with nothing written.
        #expect(frozen.status == 65, "\(frozen.standardError)")
        #expect(
            frozen.standardError.contains(
                "schema: freeze: the input has columns that Product lacks, so nothing was written; new columns: "
                    + "'color' (in second.\(format)), 'weight' (in second.\(format))"),
            "\(frozen.standardError)")
        #expect(frozen.standardError.contains("missing columns (attributes no column fills): none"))
        #expect(frozen.standardError.contains("--schema evolve"), "\(frozen.standardError)")
        // A renamed column is one new and one missing column.
        #expect(renamed.status == 65, "\(renamed.standardError)")
        #expect(renamed.standardError.contains("new columns: 'title'"), "\(renamed.standardError)")
        #expect(
            renamed.standardError.contains("missing columns (attributes no column fills): 'name'"),
            "\(renamed.standardError)")
        #expect(try Self.columns(of: "Product", in: store) == ["_pk", "_ent", "_opt", "sku", "name"])
        #expect(try PipelineCommandTests.rows(store, "SELECT count(*) FROM Product") == [[.integer(2)]])
        #expect(try ModelHistory.read(at: store.path).entries.count == 1)
    }

    @Test(arguments: ["csv", "ndjson"])
    func evolveAddsTheNewColumnsAsOptionalTypedAttributesInOneModelVersionAndASecondRunIsClean(format: String)
        throws
    {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.makeStore(format: format, in: folder)
        let store = folder.appendingPathComponent("s.sqlite")
        let arguments = [
            "import", "second.\(format)", "--store", "s.sqlite", "--entity", "Product", "--schema", "evolve",
            "--merge-policy", "object-trump", "--json",
        ]

        let evolved = try ferry.run(arguments, in: folder)
        let again = try ferry.run(arguments, in: folder)
        // Once the columns are attributes, the default contract (freeze) finds nothing new.
        let frozen = try ferry.run(
            ["import", "second.\(format)", "--store", "s.sqlite", "--entity", "Product"], in: folder)

        #expect(evolved.status == 0, "\(evolved.standardError)")
        #expect(
            evolved.standardError.contains("schema: evolve added Product.color (string), Product.weight (integer64)"))
        let first = try JSONDecoder().decode(ImportResult.self, from: Data(evolved.standardOutput.utf8))
        #expect(first.counts.read == 3 && first.counts.inserted == 1 && first.counts.updated == 2)
        #expect(first.unreadColumns == [] && first.discardedColumns == nil)
        #expect(
            try PipelineCommandTests.rows(store, "SELECT sku, color, weight, typeof(weight) FROM Product ORDER BY sku")
                == [
                    [.text("A1"), .text("red"), .integer(120), .text("integer")],
                    [.text("B2"), .null, .integer(118), .text("integer")],
                    [.text("C3"), .text("dark red"), .null, .text("null")],
                ])
        let history = try ModelHistory.read(at: store.path)
        #expect(history.entries.map(\.kind) == ["created", "migrated"])
        #expect(history.entries.last?.appliedBy == "ferry import (schema: evolve)")
        let model = try PersistentStore.storedModel(at: store.path)
        let weight = model.entity(named: "Product")?.attributes.first { $0.name == "weight" }
        #expect(weight?.type == .integer64 && weight?.isOptional == true)
        // The second run: nothing new, nothing changed, no further version.
        #expect(again.status == 0, "\(again.standardError)")
        #expect(!again.standardError.contains("schema: evolve added"))
        let second = try JSONDecoder().decode(ImportResult.self, from: Data(again.standardOutput.utf8))
        #expect(second.counts.read == 3 && second.counts.unchanged == 3 && second.unreadColumns == [])
        #expect(try ModelHistory.read(at: store.path).entries.count == 2)
        #expect(frozen.status == 0, "\(frozen.standardError)")
    }

    @Test(arguments: ["csv", "ndjson"])
    func anEvolvedAttributesTypeIsLockedSoALaterValueThatDoesNotFitIsRejectedWithItsReason(format: String) throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.makeStore(format: format, in: folder)
        let later =
            format == "csv"
            ? "sku,name,color,weight\nF6,Fig,green,heavy\nG7,Grape,green,5\n"
            : #"{"sku": "F6", "name": "Fig", "color": "green", "weight": "heavy"}"# + "\n"
                + #"{"sku": "G7", "name": "Grape", "color": "green", "weight": 5}"# + "\n"
        try Data(later.utf8).write(to: folder.appendingPathComponent("later.\(format)"))

        let evolved = try ferry.run(
            ["import", "second.\(format)", "--store", "s.sqlite", "--entity", "Product", "--schema", "evolve"],
            in: folder)
        let result = try ferry.run(
            [
                "import", "later.\(format)", "--store", "s.sqlite", "--entity", "Product", "--rejects",
                "later-rejects.\(format)", "--json",
            ], in: folder)

        #expect(evolved.status == 0, "\(evolved.standardError)")
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.counts.inserted == 1 && report.counts.rejected == 1)
        let rejects = try String(
            contentsOf: folder.appendingPathComponent("later-rejects.\(format)"), encoding: .utf8)
        #expect(rejects.contains("F6") && rejects.contains("column 'weight'"), "\(rejects)")
        #expect(
            try PipelineCommandTests.rows(
                folder.appendingPathComponent("s.sqlite"), "SELECT weight FROM Product WHERE sku = 'G7'")
                == [[.integer(5)]])
    }

    @Test(arguments: ["csv", "ndjson"])
    func discardColumnsIgnoresTheNewColumnsAndReportsAndCountsThem(format: String) throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.makeStore(format: format, in: folder)
        let store = folder.appendingPathComponent("s.sqlite")

        let json = try ferry.run(
            [
                "import", "second.\(format)", "--store", "s.sqlite", "--entity", "Product", "--schema",
                "discard-columns", "--json",
            ], in: folder)
        let human = try ferry.run(
            [
                "import", "second.\(format)", "--store", "s.sqlite", "--entity", "Product", "--schema",
                "discard-columns",
            ],
            in: folder)

        #expect(json.status == 0, "\(json.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(json.standardOutput.utf8))
        #expect(report.counts.read == 3 && report.counts.inserted == 1 && report.counts.unchanged == 2)
        #expect(report.unreadColumns == ["color", "weight"] && report.discardedColumns == 2)
        #expect(human.standardError.contains("unread columns: color, weight (2 new to Product, discarded"))
        #expect(try Self.columns(of: "Product", in: store) == ["_pk", "_ent", "_opt", "sku", "name"])
        #expect(try ModelHistory.read(at: store.path).entries.count == 1)
    }

    @Test(arguments: ["csv", "ndjson"])
    func discardRowsRejectsTheRecordsThatGiveANewColumnAValueWithAReasonNamingIt(format: String) throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.makeStore(format: format, in: folder)
        let store = folder.appendingPathComponent("s.sqlite")

        let result = try ferry.run(
            [
                "import", "mixed.\(format)", "--store", "s.sqlite", "--entity", "Product", "--schema", "discard-rows",
                "--rejects", "rejects.\(format)", "--json",
            ], in: folder)

        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(result.standardOutput.utf8))
        // A1 gives color and weight, B2 weight, C3 color; D4 and E5 leave them empty.
        #expect(report.counts.read == 5 && report.counts.rejected == 3 && report.counts.inserted == 2)
        #expect(report.unreadColumns == ["color", "weight"])
        #expect(
            try PipelineCommandTests.rows(store, "SELECT sku FROM Product ORDER BY sku")
                == [[.text("A1")], [.text("B2")], [.text("D4")], [.text("E5")]])
        let rejects = try String(contentsOf: folder.appendingPathComponent("rejects.\(format)"), encoding: .utf8)
        let lines = rejects.split(separator: "\n").filter { $0.contains("is new to Product") }
        #expect(lines.count == 3, "\(rejects)")
        for (sku, column) in [("A1", "color"), ("B2", "weight"), ("C3", "color")] {
            #expect(
                lines.contains { $0.contains(sku) && $0.contains("column '\(column)' is new to Product") }, "\(rejects)"
            )
        }
        #expect(rejects.contains("schema: discard-rows"))
    }

    @Test func aJSONFieldFirstSeenAfterTheSampleRejectsItsRecordUnderEvolveAndImportingTheRejectsAddsIt() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.makeStore(format: "ndjson", in: folder)
        let store = folder.appendingPathComponent("s.sqlite")
        // The sample is the first 1,000 records: `color` is in it, `late` comes after.
        var lines = (1...ModelInference.sampleSize).map { #"{"sku": "N\#($0)", "color": "blue"}"# }
        lines.append(#"{"sku": "Z1", "late": 7}"#)
        try Data(lines.joined(separator: "\n").utf8).write(to: folder.appendingPathComponent("many.ndjson"))

        let result = try ferry.run(
            [
                "import", "many.ndjson", "--store", "s.sqlite", "--entity", "Product", "--schema", "evolve",
                "--rejects", "late.ndjson", "--json",
            ], in: folder)
        let replayed = try ferry.run(
            ["import", "late.ndjson", "--store", "s.sqlite", "--entity", "Product", "--schema", "evolve", "--json"],
            in: folder)

        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.counts.inserted == ModelInference.sampleSize && report.counts.rejected == 1)
        #expect(report.unreadColumns == ["late"])
        let rejects = try String(contentsOf: folder.appendingPathComponent("late.ndjson"), encoding: .utf8)
        #expect(
            rejects.contains("column 'late' is new to Product and first appears after the records sampled"),
            "\(rejects)")
        #expect(replayed.status == 0, "\(replayed.standardError)")
        #expect(try PipelineCommandTests.rows(store, "SELECT late FROM Product WHERE sku = 'Z1'") == [[.integer(7)]])
        #expect(try ModelHistory.read(at: store.path).entries.map(\.kind) == ["created", "migrated", "migrated"])
    }

    @Test func evolveWithAModelFileIsAUsageErrorAndAnImportThatCreatesTheEntityTakesDiscardColumns() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SchemaContractFiles.write(format: "csv", in: folder)
        try Data("entities:\n  Product:\n    attributes: { sku: string }\n".utf8)
            .write(to: folder.appendingPathComponent("model.yml"))

        let refused = try ferry.run(
            [
                "import", "second.csv", "--store", "s.sqlite", "--model", "model.yml", "--entity", "Product",
                "--schema", "evolve",
            ], in: folder)
        let created = try ferry.run(
            ["import", "second.csv", "--store", "n.sqlite", "--entity", "Product", "--key", "sku", "--json"], in: folder
        )

        #expect(refused.status == 64 && refused.standardError.contains("add the new columns to the model file"))
        #expect(created.status == 0, "\(created.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(created.standardOutput.utf8))
        #expect(report.counts.inserted == 3 && report.unreadColumns == [])
    }
}

/// The inputs of the schema-contract tests, in CSV or NDJSON.
enum SchemaContractFiles {
    static func write(format: String, in folder: URL) throws {
        let files: [String: [String]] =
            format == "csv"
            ? [
                "first": ["sku,name", "A1,Apple", "B2,Banana"],
                "second": ["sku,name,color,weight", "A1,Apple,red,120", "B2,Banana,,118", "C3,Cherry,dark red,"],
                "renamed": ["sku,title", "A1,Apple"],
                "mixed": [
                    "sku,name,color,weight", "A1,Apple,red,120", "B2,Banana,,118", "C3,Cherry,dark red,", "D4,Date,,",
                    "E5,Elder,,",
                ],
            ]
            : [
                "first": [#"{"sku": "A1", "name": "Apple"}"#, #"{"sku": "B2", "name": "Banana"}"#],
                "second": [
                    #"{"sku": "A1", "name": "Apple", "color": "red", "weight": 120}"#,
                    #"{"sku": "B2", "name": "Banana", "weight": 118}"#,
                    #"{"sku": "C3", "name": "Cherry", "color": "dark red"}"#,
                ],
                "renamed": [#"{"sku": "A1", "title": "Apple"}"#],
                "mixed": [
                    #"{"sku": "A1", "name": "Apple", "color": "red", "weight": 120}"#,
                    #"{"sku": "B2", "name": "Banana", "weight": 118}"#,
                    #"{"sku": "C3", "name": "Cherry", "color": "dark red"}"#,
                    #"{"sku": "D4", "name": "Date"}"#, #"{"sku": "E5", "name": "Elder", "color": null, "weight": ""}"#,
                ],
            ]
        for (name, lines) in files {
            try Data((lines.joined(separator: "\n") + "\n").utf8)
                .write(to: folder.appendingPathComponent("\(name).\(format)"))
        }
    }
}

/// Standard input cannot be examined before the import: its header is judged as it is read.
struct SchemaContractStandardInputTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test func aCSVOnStandardInputWithNewColumnsFailsUnderFreezeBeforeItsFirstRecordAndDiscardRowsRejects() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SchemaContractImportTests.makeStore(format: "csv", in: folder)
        let input = Data("sku,name,color\nC3,Cherry,red\nD4,Date,\n".utf8)
        let arguments = ["import", "-", "--format", "csv", "--store", "s.sqlite", "--entity", "Product", "--json"]

        let frozen = try ferry.run(arguments, input: input, in: folder)
        let discarded = try ferry.run(arguments + ["--schema", "discard-rows"], input: input, in: folder)

        #expect(frozen.status == 65, "\(frozen.standardError)")
        #expect(frozen.standardError.contains("standard input is not examined before the import"))
        #expect(discarded.status == 0, "\(discarded.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(discarded.standardOutput.utf8))
        #expect(report.counts.inserted == 1 && report.counts.rejected == 1 && report.unreadColumns == ["color"])
        #expect(
            try PipelineCommandTests.rows(
                folder.appendingPathComponent("s.sqlite"), "SELECT sku FROM Product ORDER BY sku")
                == [[.text("A1")], [.text("B2")], [.text("D4")]])
    }
}
