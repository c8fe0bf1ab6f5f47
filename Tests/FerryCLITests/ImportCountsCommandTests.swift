import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// `ferry import` telling what happened, through the built binary: records kept over differing values (with a
/// warning when no merge policy was named), relationships by `--on-missing`, columns nothing reads.
struct ImportCountsCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    static let model = """
        entities:
          Plane:
            attributes: { tailnum: { type: string, optional: false } }
            uniquenessConstraints: [[tailnum]]
          Flight:
            attributes:
              id: { type: integer64, optional: false }
              dest: string
            relationships:
              plane: { to: Plane }
            uniquenessConstraints: [[id]]
        """

    func workspace(_ files: [String: String]) throws -> URL {
        let folder = try TestSupport.makeTemporaryFolder()
        try Data(Self.model.utf8).write(to: folder.appendingPathComponent("flights.model.yml"))
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    func importFlights(_ file: String, in folder: URL, _ extra: [String] = []) throws -> BuiltCommand.Result {
        try ferry.run(
            [
                "import", file, "--store", "f.sqlite", "--model", "flights.model.yml", "--entity", "Flight",
                "--relationship", "plane=Plane.tailnum",
            ] + extra, in: folder)
    }

    @Test func anUpsertThatKeepsDifferingRecordsSaysSoAndWarnsUnlessThePolicyIsNamed() throws {
        let folder = try workspace([
            "day1.csv": "id,plane,dest\n1,N1,IAH\n2,N2,MIA\n",
            "day2.csv": "id,plane,dest\n1,N1,BOS\n2,N2,MIA\n",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try importFlights("day1.csv", in: folder, ["--on-missing", "create"]).status == 0)

        let second = try importFlights("day2.csv", in: folder, ["--create-missing", "--json"])

        #expect(second.status == 0, "\(second.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(second.standardOutput.utf8))
        #expect(report.counts.kept == 1 && report.counts.unchanged == 1 && report.counts.isBalanced)
        #expect(second.standardError.contains("1 records kept the stored values"), "\(second.standardError)")
        #expect(second.standardError.contains("--merge-policy object-trump"))

        let named = try importFlights("day2.csv", in: folder, ["--merge-policy", "store-trump"])
        #expect(named.status == 0 && named.standardError.contains("1 kept"), "\(named.standardError)")
        #expect(!named.standardError.contains("records kept the stored values"))
        // The inspection shows the count the ledger keeps.
        let inspect = try ferry.run(["inspect", "--store", "f.sqlite"], in: folder)
        #expect(inspect.standardOutput.contains("kept 1"), "\(inspect.standardOutput)")
    }

    @Test func onMissingCreateCountsTheDestinationsAndNullLeavesTheRelationshipEmpty() throws {
        let folder = try workspace(["flights.csv": "id,plane,dest\n1,N1,IAH\n2,N2,MIA\n3,N1,BOS\n"])
        defer { try? FileManager.default.removeItem(at: folder) }

        let created = try importFlights("flights.csv", in: folder, ["--on-missing", "create"])
        #expect(created.status == 0 && created.standardError.contains("created 2 Plane"), "\(created.standardError)")

        let other = try workspace(["flights.csv": "id,plane,dest\n1,N1,IAH\n"])
        defer { try? FileManager.default.removeItem(at: other) }
        let emptied = try importFlights("flights.csv", in: other, ["--on-missing", "null", "--json"])
        #expect(emptied.status == 0, "\(emptied.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(emptied.standardOutput.utf8))
        #expect(report.counts.leftEmpty == 1 && report.counts.inserted == 1)
        #expect(
            try PipelineCommandTests.rows(other.appendingPathComponent("f.sqlite"), "SELECT plane FROM Flight")
                == [[.null]])
    }

    @Test func anInputColumnNoAttributeReadsIsNamedInTheWarningAndTheReport() throws {
        let folder = try workspace(["flights.csv": "id,plane,destination\n1,N1,IAH\n"])
        defer { try? FileManager.default.removeItem(at: folder) }

        // Flight exists in the model given, so a column it lacks fails the import by default (--schema freeze).
        let frozen = try importFlights("flights.csv", in: folder, ["--on-missing", "create"])
        let result = try importFlights(
            "flights.csv", in: folder, ["--on-missing", "create", "--schema", "discard-columns", "--json"])

        #expect(frozen.status == 65 && frozen.standardError.contains("new columns: 'destination'"))
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.unreadColumns == ["destination"])
        #expect(result.standardError.contains("no attribute reads the input columns destination"))
    }

    @Test func onMissingNullOnARequiredRelationshipIsAConfigurationError() throws {
        let folder = try workspace(["flights.csv": "id,plane\n1,N1\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            Self.model.replacingOccurrences(of: "plane: { to: Plane }", with: "plane: { to: Plane, optional: false }")
                .utf8
        )
        .write(to: folder.appendingPathComponent("flights.model.yml"))

        let result = try importFlights("flights.csv", in: folder, ["--on-missing", "null"])

        #expect(result.status == 78, "\(result.standardError)")
        #expect(result.standardError.contains("onMissing: null"))
    }
}
