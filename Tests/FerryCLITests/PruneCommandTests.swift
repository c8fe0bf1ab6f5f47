import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// `ferry prune` on a store that three nights of imports filled with runs, rejects and history.
struct PruneCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    /// A store after three imports of `items.csv` (each with one rejected record), recording history.
    private func withThreeNights(_ body: (String) throws -> Void) throws {
        try TestSupport.withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("items.sqlite").path
            let model = try TestSupport.write(
                Array("entities:\n  Item:\n    attributes:\n      id: { type: integer64, unique: true }\n      qty: integer32\n".utf8),
                to: "items.model.yml", in: folder)
            for night in 1...3 {
                let input = try TestSupport.write(
                    Array("id,qty\n\(night),\(night)\nbad,1\n".utf8), to: "items.csv", in: folder)
                let load = try ferry.run([
                    "import", input, "--store", store, "--model", model, "--entity", "Item", "--history", "--quiet",
                ])
                #expect(load.status == 0, "\(load.standardError)")
            }
            try body(store)
        }
    }

    private func count(_ store: String, _ table: String) throws -> Int64 {
        let connection = try Connection(path: store, mode: .readOnly)
        return try connection.prepare("SELECT count(*) FROM \(table)").fetchOne()?[0].integer ?? -1
    }

    @Test func keepingTheLatestRunDeletesTheOthersWithTheirRejects() throws {
        try withThreeNights { store in
            #expect(try count(store, "ferry_runs") == 3)
            #expect(try count(store, "ferry_rejects") == 3)
            let result = try ferry.run(["prune", "--store", store, "--runs-keep", "1", "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let pruned = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Int])
            #expect(pruned["runs"] == 2)
            #expect(try count(store, "ferry_runs") == 1)
            #expect(try count(store, "ferry_rejects") == 1)
            // The rows themselves are untouched.
            #expect(try count(store, "Item") == 3)
        }
    }

    @Test func historyAndRejectsGoByDate() throws {
        try withThreeNights { store in
            let history = try count(store, "ferry_history_transactions")
            #expect(history > 0)
            let nothing = try ferry.run(["prune", "--store", store, "--history-before", "2000-01-01"])
            #expect(nothing.status == 0, "\(nothing.standardError)")
            #expect(try count(store, "ferry_history_transactions") == history)

            let all = try ferry.run(["prune", "--store", store, "--history-before", "2100-01-01", "--rejects-before", "2100-01-01T00:00:00Z"])
            #expect(all.status == 0, "\(all.standardError)")
            #expect(all.standardError.contains("pruned \(history) history transactions"))
            #expect(try count(store, "ferry_history_transactions") == 0)
            #expect(try count(store, "ferry_rejects") == 0)
            #expect(try count(store, "ferry_runs") == 3)
        }
    }

    @Test func pruningNothingOrABadDateIsAUsageError() throws {
        #expect(try ferry.run(["prune", "--store", "x.sqlite"]).status == 64)
        #expect(try ferry.run(["prune", "--store", "x.sqlite", "--history-before", "yesterday"]).status == 64)
        #expect(try ferry.run(["prune", "--store", "/nonexistent/x.sqlite", "--runs-keep", "3"]).status == 66)
    }
}
