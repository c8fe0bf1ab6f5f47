import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGKILL trials of the built `ferry migrate`: a template store made once at the old model, copied before every
/// run, and the migration killed at moments spread over how long it takes uninterrupted, then run again to the end.
struct MigrationKillTrials {
    let ferry: BuiltCommand
    let folder: URL
    /// The template store, at the old model.
    let template: String
    /// The store each run migrates, a copy of the template.
    let store: String

    /// Writes `v1.yml` and `v2.yml` into `folder` and makes the template at v1: `ferry import` of the one-record
    /// `csv` creates it, then `fill` (SQL) replaces its rows.
    init(ferry: BuiltCommand, folder: URL, v1: String, v2: String, csv: String, fill: String) throws {
        self.ferry = ferry
        self.folder = folder
        try v1.write(to: folder.appendingPathComponent("v1.yml"), atomically: true, encoding: .utf8)
        try v2.write(to: folder.appendingPathComponent("v2.yml"), atomically: true, encoding: .utf8)
        try csv.write(to: folder.appendingPathComponent("one.csv"), atomically: true, encoding: .utf8)
        let made = try ferry.run(
            ["import", "one.csv", "--store", "template.sqlite", "--model", "v1.yml", "--entity", "Product"], in: folder)
        #expect(made.status == 0, "\(made.standardError)")
        template = folder.appendingPathComponent("template.sqlite").path
        store = folder.appendingPathComponent("s.sqlite").path
        let connection = try Connection(path: template)
        try connection.execute("DELETE FROM Product;\n" + fill)
        _ = try connection.checkpoint(.truncate)
    }

    /// Puts a fresh copy of the template (and of its blob folder, when it has one) in place of the store, its side
    /// files and blob folder removed.
    func resetStore() throws {
        for suffix in ["", "-wal", "-shm", ".lock", "-blobs"] {
            try? FileManager.default.removeItem(atPath: store + suffix)
        }
        try FileManager.default.copyItem(atPath: template, toPath: store)
        if FileManager.default.fileExists(atPath: template + "-blobs") {
            try FileManager.default.copyItem(atPath: template + "-blobs", toPath: store + "-blobs")
        }
    }

    /// The model hash a store is at.
    static func modelHash(_ connection: Connection) throws -> String {
        try connection.prepare("SELECT value FROM ferry_metadata WHERE key = 'model_hash'").fetchOne()?[0].text ?? ""
    }

    /// Runs `ferry arguments` to the end on a fresh copy; returns how long it took, in seconds.
    func runUninterrupted(_ arguments: [String]) throws -> Double {
        try resetStore()
        let start = Date()
        let result = try ferry.run(arguments, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        return Date().timeIntervalSince(start)
    }

    /// `trials` runs of `ferry arguments` on fresh copies, each killed with SIGKILL at a moment spread over `seconds`
    /// (trial `t` at `(t + 0.5) / trials` of it); `afterKill` inspects the store the kill left, then the command is
    /// run again to the end and `afterRerun` checks the result.
    func run(
        _ arguments: [String], trials: Int, over seconds: Double, afterKill: (_ trial: Int) throws -> Void,
        afterRerun: (_ trial: Int) throws -> Void
    ) throws {
        for trial in 0..<trials {
            try resetStore()
            let process = try ferry.start(arguments, in: folder)
            Thread.sleep(forTimeInterval: seconds * (Double(trial) + 0.5) / Double(trials))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try afterKill(trial)
            let rerun = try ferry.run(arguments, in: folder)
            #expect(rerun.status == 0, "trial \(trial): \(rerun.standardError)")
            try afterRerun(trial)
        }
    }
}
