import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// `ferry import` of data with no natural key (a JSON array such as vega's cars.json) without `--key`, through the
/// built binary: each run appends its records.
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
}
