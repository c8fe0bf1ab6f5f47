import FerryPostgres
import FerryTestSupport
import Foundation
import Testing

/// The built `ferry publish` against the test PostgreSQL server: counts as JSON, exit codes for a locked table and
/// a wrong password (never printed), and SIGKILL trials that leave exactly the committed chunks and resume.
@Suite(.serialized)
struct PublishCommandTests {
    static let modelYAML = """
        entities:
          Item:
            attributes:
              code: { type: string, optional: false }
              name: { type: string, optional: false }
              qty: { type: integer32 }
            uniquenessConstraints: [[code]]
        """
    let ferry = BuiltCommand(product: "ferry")

    /// A folder with a store of `count` items (`IT-000001`, `Item 1`, qty n % 1000) imported by the built ferry.
    func workspace(items count: Int) throws -> URL {
        let folder = try TestSupport.makeTemporaryFolder()
        var csv = "code,name,qty\n"
        for number in 1...count { csv += "IT-\(String(format: "%06d", number)),Item \(number),\(number % 1000)\n" }
        try Data(csv.utf8).write(to: folder.appendingPathComponent("items.csv"))
        try Data(Self.modelYAML.utf8).write(to: folder.appendingPathComponent("items.model.yml"))
        let imported = try ferry.run(
            ["import", "items.csv", "--store", "items.sqlite", "--model", "items.model.yml", "--entity", "Item",
             "--key", "code", "--quiet"], in: folder)
        try #require(imported.status == 0, "\(imported.standardError)")
        return folder
    }

    func publishArguments(_ url: String, _ extra: [String] = []) -> [String] {
        ["publish", "--store", "items.sqlite", "--entity", "Item", "--to", url] + extra
    }

    @Test func aPublishPrintsItsCountsAsJSONAndASecondOneFindsEveryRowUnchanged() throws {
        let folder = try workspace(items: 50)
        let database = try PostgresTestDatabase()
        defer { database.drop() }
        let first = try ferry.run(publishArguments(database.url, ["--json"]), in: folder)
        try #require(first.status == 0, "\(first.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any])
        #expect(report["sent"] as? Int == 50)
        #expect(report["inserted"] as? Int == 50)
        #expect(report["table"] as? String == "item")
        let second = try ferry.run(publishArguments(database.url), in: folder)
        #expect(second.status == 0)
        #expect(second.standardError.contains("50 sent · 0 inserted · 0 updated · 50 unchanged"))
        #expect(try database.rows("SELECT count(*) FROM item") == [["50"]])
        // The ledger records both publishes with their counts.
        let history = try ferry.run(["inspect", "--store", "items.sqlite"], in: folder)
        #expect(history.standardOutput.contains("publish Item to item"))
        for output in [first.standardOutput, first.standardError, second.standardError, history.standardOutput] {
            #expect(!output.contains(database.password))
        }
    }

    @Test func thePublishPipelinePublishesTheDemoCatalogAndThenFindsNothingChanged() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["Pipelines", "SampleData"] {
            try FileManager.default.copyItem(
                at: TestSupport.packageRoot.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let database = try PostgresTestDatabase()
        defer { database.drop() }
        #expect(try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder).status == 0)
        setenv("FERRY_PUBLISH_URL", database.url, 1)
        let first = try ferry.run(["run", "Pipelines/publish.yml", "--json"], in: folder)
        try #require(first.status == 0, "\(first.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any])
        let steps = try #require(report["steps"] as? [[String: Any]])
        #expect(steps.map { $0["name"] as? String } == ["categories", "products", "orders", "order items"])
        let products = Int(try database.rows("SELECT count(*) FROM products").first?[0] ?? "") ?? -1
        #expect(products > 0)
        #expect(((steps[1]["counts"] as? [String: Any])?["inserted"] as? Int) == products)
        // A product names its category by name, and every category it names is published.
        #expect(
            try database.rows(
                "SELECT count(*) FROM products p WHERE p.category IS NOT NULL AND NOT EXISTS "
                    + "(SELECT 1 FROM categories c WHERE c.name = p.category)") == [["0"]])
        let again = try ferry.run(["run", "Pipelines/publish.yml", "--json"], in: folder)
        try #require(again.status == 0, "\(again.standardError)")
        let second = try #require(
            try JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [String: Any])
        for step in try #require(second["steps"] as? [[String: Any]]) {
            let counts = step["counts"] as? [String: Any]
            #expect(counts?["inserted"] as? Int == 0 && counts?["updated"] as? Int == 0, "\(step)")
        }
        // On a terminal, each publish step shows the rows it sent.
        let screen = try ferry.runOnATerminal(["run", "Pipelines/publish.yml"], in: folder).standardOutput
        #expect(screen.contains("categories · 8 rows · "), "\(screen)")
    }

    @Test func aPublishShowsTheRowsSentOnATerminalAfterEachChunk() throws {
        let folder = try workspace(items: 50)
        let database = try PostgresTestDatabase()
        defer { database.drop() }
        let result = try ferry.runOnATerminal(publishArguments(database.url, ["--chunk-size", "20"]), in: folder)
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("publish Item · 20 rows · "), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("published Item to "), "\(result.standardOutput)")
        let quiet = try ferry.runOnATerminal(publishArguments(database.url, ["--quiet"]), in: folder)
        #expect(quiet.status == 0 && quiet.standardOutput.isEmpty, "\(quiet.standardOutput)")
    }

    @Test func aSecondPublishOfALockedTableExits75() throws {
        let folder = try workspace(items: 5)
        let database = try PostgresTestDatabase()
        defer { database.drop() }
        let holder = try database.connect()
        #expect(try holder.tryAdvisoryLock("ferry.publish:item"))
        let result = try ferry.run(publishArguments(database.url), in: folder)
        #expect(result.status == 75)
        #expect(result.standardError.contains("another publish of the table item is running"))
    }

    @Test func aWrongPasswordExits74WithLibpqsMessageAndNeverThePassword() throws {
        let folder = try workspace(items: 5)
        let database = try PostgresTestDatabase()
        defer { database.drop() }
        let wrongPassword = "Wr0ng-\(database.password)"
        let url = database.url.replacingOccurrences(of: database.password, with: wrongPassword)
        let result = try ferry.run(publishArguments(url, ["--json"]), in: folder)
        #expect(result.status == 74)
        #expect(result.standardError.contains("password authentication failed for user \"ferry\""))
        #expect(result.standardError.contains("postgresql://ferry:***@127.0.0.1"))
        #expect(!result.standardError.contains(wrongPassword))
        #expect(!result.standardOutput.contains(wrongPassword))
        #expect(result.standardOutput.contains("\"exit_code\" : 74"))
    }

    @Test func anUnreachableServerExits74() throws {
        let folder = try workspace(items: 5)
        let result = try ferry.run(
            publishArguments("postgresql://ferry:secret-x@127.0.0.1:1/none?connect_timeout=5"), in: folder)
        #expect(result.status == 74)
        #expect(result.standardError.contains("Connection refused"))
        #expect(!result.standardError.contains("secret-x"))
    }

    /// Kills `ferry publish --mode append` (no unique index: a row sent twice would show) at moments spread over a
    /// run; every killed run leaves exactly the rows its checkpoint counts, and the next run finishes the table with
    /// every row once.
    @Test func aPublishKilledAtAnyMomentLeavesItsCommittedChunksOnceAndResumes() throws {
        let count = 60_000
        let folder = try workspace(items: count)
        let arguments = { (url: String) in
            publishArguments(url, ["--mode", "append", "--fields", "name,qty", "--chunk-size", "2000", "--quiet"])
        }
        let reference = try PostgresTestDatabase()
        defer { reference.drop() }
        let started = ContinuousClock.now
        let whole = try ferry.run(arguments(reference.url), in: folder)
        try #require(whole.status == 0, "\(whole.standardError)")
        let seconds = (ContinuousClock.now - started).seconds
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<6 {
            let database = try PostgresTestDatabase()
            defer { database.drop() }
            let process = try ferry.start(arguments(database.url), in: folder)
            let fraction = (Double(trial) + Double.random(in: 0..<1, using: &generator)) / 6
            Thread.sleep(forTimeInterval: seconds * fraction)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // A kill before the table or the checkpoint table was made leaves neither.
            let tables = try database.rows(
                "SELECT to_regclass('item') IS NOT NULL, to_regclass('ferry_publish_checkpoints') IS NOT NULL")
            let rows =
                tables.first?[0] == "t" ? Int(try database.rows("SELECT count(*) FROM item").first?[0] ?? "") ?? -1 : 0
            let checkpoint =
                tables.first?[1] == "t"
                ? try database.rows(
                    "SELECT rows_done, in_progress FROM ferry_publish_checkpoints WHERE table_name = 'item'") : []
            if let done = checkpoint.first {
                // What the checkpoint counts is exactly what the table holds: no chunk partly, none twice.
                #expect(Int(done[0] ?? "") == rows, "trial \(trial)")
                // A run that finished before its kill leaves nothing to resume (another append would add them all).
                if done[1] == "f" {
                    #expect(rows == count, "trial \(trial)")
                    continue
                }
            } else {
                #expect(rows == 0, "trial \(trial): rows without a checkpoint")
            }
            let resumed = try ferry.run(arguments(database.url), in: folder)
            #expect(resumed.status == 0, "trial \(trial): \(resumed.standardError)")
            #expect(
                try database.rows("SELECT count(*), count(DISTINCT name) FROM item") == [["\(count)", "\(count)"]],
                "trial \(trial)")
        }
    }
}
