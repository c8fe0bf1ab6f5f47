import FerryTestSupport
import Foundation
import Testing

/// `--json` when a command fails: standard output still carries a report a wrapper can read, with the error, its
/// exit code, the step it failed at and what ran before.
struct JSONFailureReportTests {
    let ferry = BuiltCommand(product: "ferry")

    private func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func anInvalidPipelineReportsItsErrorAndExitCode() throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("store: ../out/x.sqlite\nsteps:\n  - batchDelete: { entity: Product, were: x }\n".utf8)
            .write(to: folder.appendingPathComponent("Pipelines/broken.yml"))
        let result = try ferry.run(["run", "Pipelines/broken.yml", "--json"], in: folder)
        #expect(result.status == 78)
        let report = try object(result.standardOutput)
        #expect(report["status"] as? String == "failed")
        #expect(report["exit_code"] as? Int == 78)
        #expect((report["error"] as? String)?.contains("unknown key 'were'") == true)
    }

    @Test func aRunThatFailsAtAStepNamesItWithTheStepsBefore() throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A feed of four lines trips the full sync's guard at the products step (exit 65).
        #expect(try ferry.run(["run", "Pipelines/nightly.yml", "--quiet"], in: folder).status == 0)
        let feed = folder.appendingPathComponent("SampleData/products.csv")
        let lines = try String(contentsOf: feed, encoding: .utf8).components(separatedBy: "\n")
        try Data(lines.prefix(4).joined(separator: "\n").utf8).write(to: feed)

        let result = try ferry.run(["run", "Pipelines/nightly.yml", "--json", "--quiet"], in: folder)
        #expect(result.status == 65)
        let report = try object(result.standardOutput)
        #expect(report["exit_code"] as? Int == 65)
        #expect(report["step"] as? String == "products")
        let steps = (report["report"] as? [String: Any])?["steps"] as? [[String: Any]]
        #expect(steps?.map { $0["name"] as? String } == ["categories"])
    }

    @Test func aFailedImportReportsItsErrorAndExitCode() throws {
        try TestSupport.withTemporaryFolder { folder in
            let result = try ferry.run([
                "import", "/nonexistent/items.csv", "--store", folder.appendingPathComponent("s.sqlite").path,
                "--entity", "Item", "--key", "id", "--json",
            ])
            #expect(result.status == 66)
            let report = try object(result.standardOutput)
            #expect(report["status"] as? String == "failed")
            #expect(report["exit_code"] as? Int == 66)
        }
    }
}
