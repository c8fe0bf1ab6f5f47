import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// The built `ferry migrate` killed with SIGKILL at moments spread over an uninterrupted migration that rebuilds a
/// table in small chunks: the store is left at its old model or the new one, never between, other work is refused
/// while a copy is half done, and the next `ferry migrate` ends in the uninterrupted migration's state.
@Suite(.serialized)
struct MigrationCrashTests {
    let ferry = BuiltCommand(product: "ferry")
    static let rows = 60_000
    static let v1 = """
        entities:
          Product:
            attributes: { sku: string, quantity: integer32 }
            uniquenessConstraints: [[sku]]
        """
    static let v2 = """
        entities:
          Product:
            attributes: { sku: string, quantity: double, origin: string }
            uniquenessConstraints: [[sku]]
        """

    /// The trials, on a store at v1 holding `rows` products.
    func trials(in folder: URL) throws -> MigrationKillTrials {
        try MigrationKillTrials(
            ferry: ferry, folder: folder, v1: Self.v1, v2: Self.v2, csv: "sku,quantity\nSKU-X,1\n",
            fill: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
                INSERT INTO Product (_ent, sku, quantity) SELECT 1, printf('SKU-%06d', i), i % 97 FROM n;
                """)
    }

    func state(_ path: String) throws -> (hash: String, versions: Int, rows: Int, sum: Double, types: [String]) {
        let connection = try Connection(path: path, mode: .readOnly)
        let hash = try MigrationKillTrials.modelHash(connection)
        let versions = try connection.prepare("SELECT count(*) FROM ferry_model_history").fetchOne()?[0].integer ?? 0
        let totals = try connection.prepare("SELECT count(*), total(quantity) FROM Product").fetchOne()
        let types = try connection.prepare("SELECT DISTINCT typeof(quantity) FROM Product").fetchAll()
            .compactMap { $0[0].text }
        #expect(try connection.prepare("PRAGMA integrity_check").fetchOne()?[0].text == "ok")
        return (hash, Int(versions), Int(totals?[0].integer ?? 0), totals?[1].real ?? 0, types.sorted())
    }

    @Test func aMigrationKilledAtAnyMomentLeavesTheOldOrTheNewModelAndTheNextRunFinishesIt() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trials = try trials(in: folder)
        let before = try state(trials.template)
        let store = trials.store
        let arguments = ["migrate", "--store", store, "--model", "v2.yml", "--chunk-rows", "2000", "--quiet"]
        let seconds = try trials.runUninterrupted(arguments)
        let after = try state(store)
        #expect(after.versions == 2 && after.rows == Self.rows && after.types == ["real"])
        #expect(after.sum == before.sum)
        var landings = (old: 0, midCopy: 0, new: 0)
        try trials.run(arguments, trials: 8, over: seconds) { trial in
            let killed = try state(store)
            if killed.hash == after.hash {
                #expect(killed.versions == 2 && killed.types == ["real"] && killed.rows == Self.rows, "trial \(trial)")
                landings.new += 1
            } else {
                #expect(killed.hash == before.hash, "trial \(trial)")
                #expect(killed.versions == 1 && killed.types == ["integer"], "trial \(trial)")
                #expect(killed.rows == Self.rows && killed.sum == before.sum, "trial \(trial)")
                let connection = try Connection(path: store, mode: .readOnly)
                let marker = try connection.prepare(
                    "SELECT count(*) FROM sqlite_master WHERE name = 'ferry_migration'").fetchOne()?[0].integer
                let midCopy = try marker == 1
                    && connection.prepare("SELECT count(*) FROM ferry_migration").fetchOne()?[0].integer == 1
                if midCopy {
                    landings.midCopy += 1
                    let export = try ferry.run(["export", "--store", store, "--entity", "Product"], in: folder)
                    #expect(export.status == 75, "trial \(trial)")
                    #expect(export.standardError.contains("middle of a migration"), "trial \(trial)")
                } else {
                    landings.old += 1
                }
            }
        } afterRerun: { trial in
            let finished = try state(store)
            #expect(finished.hash == after.hash && finished.versions == 2, "trial \(trial)")
            #expect(finished.rows == after.rows && finished.sum == after.sum && finished.types == ["real"])
        }
        print("migration crash trials: 8 kills: \(landings)")
    }
}
