import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// `ferry import` of data with no natural key (a JSON array such as vega's cars.json) without `--key`, through the
/// built binary: each run appends its records, or with `--replace` (`replace: true`) replaces the entity's rows.
struct KeylessImportTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test func importingWithoutAKeyAppendsTheRecordsOnEveryRunAndTheSummarySaysSo() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            #"[{"Name": "chevrolet chevelle malibu", "Miles_per_Gallon": 18}, {"Name": "buick skylark 320", "Miles_per_Gallon": 15}, {"Name": "chevrolet chevelle malibu", "Miles_per_Gallon": 18}]"#
                .utf8
        ).write(to: folder.appendingPathComponent("cars.json"))
        let arguments = ["import", "cars.json", "--store", "s.sqlite", "--entity", "Car", "--json"]

        let first = try ferry.run(arguments, in: folder)
        let second = try ferry.run(arguments + ["--mode", "context"], in: folder)

        #expect(first.status == 0 && second.status == 0, "\(first.standardError) \(second.standardError)")
        for run in [first, second] {
            let report = try JSONDecoder().decode(ImportResult.self, from: Data(run.standardOutput.utf8))
            #expect(report.counts.read == 3 && report.counts.inserted == 3 && report.counts.rejected == 0)
            #expect(report.appended == true)
        }
        // The summary says the records were appended.
        let third = try ferry.run(["import", "cars.json", "--store", "s.sqlite", "--entity", "Car"], in: folder)
        #expect(third.status == 0 && third.standardError.contains("(appended: no key)"), "\(third.standardError)")
        #expect(
            try PipelineCommandTests.rows(
                folder.appendingPathComponent("s.sqlite"),
                "SELECT Name, Miles_per_Gallon, count(*) FROM Car GROUP BY Name ORDER BY Name")
                == [
                    [.text("buick skylark 320"), .integer(15), .integer(3)],
                    [.text("chevrolet chevelle malibu"), .integer(18), .integer(6)],
                ])
    }

    @Test func replaceTakesTheStoredRowsAwayForTheRecordsInOnePipelineStepOrCommand() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"[{"Name": "a", "Miles": 1}, {"Name": "b", "Miles": 2}]"#.utf8)
            .write(to: folder.appendingPathComponent("cars.json"))
        try Data(#"[{"Name": "c", "Miles": 3}]"#.utf8).write(to: folder.appendingPathComponent("tonight.json"))
        try Data(
            """
            store: s.sqlite
            steps:
              - import: { name: cars, source: tonight.json, entity: Car, replace: true }
            """.utf8
        ).write(to: folder.appendingPathComponent("nightly.yml"))
        let store = folder.appendingPathComponent("s.sqlite")

        let appended = try ferry.run(["import", "cars.json", "--store", "s.sqlite", "--entity", "Car"], in: folder)
        let replaced = try ferry.run(
            ["import", "cars.json", "--store", "s.sqlite", "--entity", "Car", "--replace", "--json"], in: folder)
        let stillTwo = try PipelineCommandTests.rows(store, "SELECT Name FROM Car ORDER BY Name")
        let night = try ferry.run(["run", "nightly.yml"], in: folder)

        #expect(appended.status == 0 && replaced.status == 0, "\(appended.standardError) \(replaced.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(replaced.standardOutput.utf8))
        #expect(report.replaced == true && report.counts.inserted == 2 && report.counts.deleted == 2)
        #expect(stillTwo == [[.text("a")], [.text("b")]])
        #expect(night.status == 0 && night.standardError.contains("(replaced: no key)"), "\(night.standardError)")
        #expect(try PipelineCommandTests.rows(store, "SELECT Name, Miles FROM Car") == [[.text("c"), .integer(3)]])
        // A key-matched entity is refused: the pipeline is invalid before anything is written (78).
        let keyed = try ferry.run(
            ["import", "cars.json", "--store", "k.sqlite", "--entity", "Car", "--key", "Name", "--replace"], in: folder)
        #expect(keyed.status == 78 && keyed.standardError.contains("fullSync"), "\(keyed.standardError)")
    }
}
