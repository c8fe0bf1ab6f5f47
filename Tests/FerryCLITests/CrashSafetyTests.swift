import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// The built `ferry import` killed with SIGKILL at random moments, read while it runs, and starved of disk: the
/// store always holds exactly the committed chunks, agrees with its ledger, and `--resume` finishes the job.
@Suite(.serialized)
struct CrashSafetyTests {
    static let records = 16_000
    static let chunk = 500
    static let input = CrashTrialInput(count: records)
    let ferry = BuiltCommand(product: "ferry")

    /// A folder holding items.csv and items.model.yml.
    static func workspace() throws -> URL {
        let folder = try TestSupport.makeTemporaryFolder()
        try Data(input.csv.utf8).write(to: folder.appendingPathComponent("items.csv"))
        try Data(CrashTrialInput.modelYAML.utf8).write(to: folder.appendingPathComponent("items.model.yml"))
        return folder
    }

    static func importArguments(store: String, mode: String, chunk: Int = chunk) -> [String] {
        [
            "import", "items.csv", "--store", store, "--model", "items.model.yml", "--entity", "Item", "--key",
            "code", "--chunk", String(chunk), "--mode", mode, "--rejects", store + ".rejects.csv", "--quiet",
        ]
    }

    static let itemsSQL = "SELECT code, name, qty, price FROM Item ORDER BY code"

    /// An uninterrupted import: the state every trial must end in, and how long a run takes.
    struct Reference {
        var rows: [Row]
        var counts: StepCounts
        var rejects: String
        var seconds: Double
    }

    func reference(mode: String, in folder: URL) throws -> Reference {
        let started = ContinuousClock.now
        let result = try ferry.run(Self.importArguments(store: "reference.sqlite", mode: mode) + ["--json"], in: folder)
        let seconds = (ContinuousClock.now - started).seconds
        try #require(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(result.standardOutput.utf8))
        let store = folder.appendingPathComponent("reference.sqlite").path
        #expect(report.counts == Self.input.counts(after: Self.records))
        #expect(try StoreProbe.keys(store) == Self.input.storedKeys(after: Self.records))
        let rejects = try String(contentsOfFile: store + ".rejects.csv", encoding: .utf8)
        #expect(rejects.split(separator: "\n").count == Self.input.counts(after: Self.records).rejected + 1)
        return Reference(
            rows: try StoreProbe.rows(store, Self.itemsSQL), counts: report.counts, rejects: rejects,
            seconds: seconds)
    }

    /// Where a kill landed.
    enum Landing: String, CaseIterable {
        case beforeTheRunWasRecorded, beforeTheFirstChunk, midRun, afterTheLastChunk, afterTheRunFinished
    }

    /// The kill times are fractions of an uninterrupted run measured here, now: one in each twelfth (or eighth) of
    /// it, at a seeded place within. Where a kill lands depends on the machine (a busy one lands more of them early);
    /// what is asserted holds wherever it lands: exactly the committed chunks, and after a resume (or a plain rerun
    /// when no run was recorded) the uninterrupted state. A run that ended before its kill is checked the same way.
    @Test(arguments: [("batch", 12, UInt64(0xF3_2217)), ("context", 8, UInt64(0xC0_FFEE))])
    func aRunKilledAtAnyMomentLeavesExactlyItsCommittedChunksAndResumesToTheReferenceState(
        mode: String, trials: Int, seed: UInt64
    ) throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = try reference(mode: mode, in: folder)
        var generator = SeededGenerator(seed: seed)
        var landings: [Landing: Int] = [:]
        for trial in 0..<trials {
            let store = folder.appendingPathComponent("trial-\(trial).sqlite").path
            let fraction = (Double(trial) + Double.random(in: 0..<1, using: &generator)) / Double(trials)
            let process = try ferry.start(Self.importArguments(store: store, mode: mode), in: folder)
            Thread.sleep(forTimeInterval: fraction * reference.seconds)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let landing: Landing
            if process.terminationReason == .uncaughtSignal {
                landing = try checkKilledStore(store, pid: process.processIdentifier, mode: mode, trial: trial)
            } else {
                #expect(process.terminationStatus == 0, "trial \(trial): an unkilled run failed")
                landing = .afterTheRunFinished
            }
            landings[landing, default: 0] += 1
            try resumeAndCompare(store, landing: landing, mode: mode, reference: reference, in: folder, trial: trial)
            for suffix in ["", "-wal", "-shm", ".lock", ".rejects.csv"] {
                try? FileManager.default.removeItem(atPath: store + suffix)
            }
        }
        print(
            "crash trials (\(mode)): \(trials) kills over a \(String(format: "%.2f", reference.seconds)) s run: "
                + Landing.allCases.map { "\($0.rawValue) \(landings[$0] ?? 0)" }.joined(separator: ", "))
    }

    /// Checks the store a killed run left and says where the kill landed.
    func checkKilledStore(_ store: String, pid: Int32, mode: String, trial: Int) throws -> Landing {
        if FileManager.default.fileExists(atPath: store) {
            #expect(try StoreProbe.integrity(store) == "ok", "trial \(trial)")
        }
        guard let run = try StoreProbe.latestRun(store) else {
            #expect(try StoreProbe.keys(store).isEmpty, "trial \(trial)")
            return .beforeTheRunWasRecorded
        }
        if run.status == "succeeded" { return .afterTheRunFinished }
        #expect(run.status == "running" && run.pid == Int64(pid), "trial \(trial): \(run)")
        let records = run.checkpoint?.records ?? 0
        #expect(run.checkpoint == nil || run.checkpoint?.input == 0, "trial \(trial)")
        #expect(records % Self.chunk == 0 || records == Self.records, "trial \(trial): a partial chunk \(records)")
        let keys = try StoreProbe.keys(store)
        // Exactly the committed chunks: their good records' keys, as many rows as the ledger says were inserted.
        let rows = try StoreProbe.rows(store, "SELECT count(*) FROM Item").first?[0].integer ?? -1
        #expect(rows == Int64(run.counts.inserted), "trial \(trial): \(records) records, ledger \(run.counts)")
        #expect(keys == Self.input.storedKeys(after: records), "trial \(trial): \(records) records")
        #expect(Self.input.possibleCounts(after: records).contains(run.counts), "trial \(trial)")
        #expect(
            try StoreProbe.rejectedRecords(store, runs: [run.id]) == Self.input.rejectedRecords(after: records),
            "trial \(trial)")
        switch records {
        case 0: return .beforeTheFirstChunk
        case Self.records: return .afterTheLastChunk
        default: return .midRun
        }
    }

    /// Resumes (or, when there is nothing to resume, checks why) and compares the end state with the reference.
    func resumeAndCompare(
        _ store: String, landing: Landing, mode: String, reference: Reference, in folder: URL, trial: Int
    ) throws {
        let resume = try ferry.run(
            Self.importArguments(store: store, mode: mode) + ["--resume", "--json"], in: folder)
        switch landing {
        case .beforeTheRunWasRecorded, .afterTheRunFinished:
            #expect(resume.status == 64, "trial \(trial): \(resume.standardError)")
            #expect(resume.standardError.contains("nothing to resume"), "trial \(trial)")
            if landing == .beforeTheRunWasRecorded {
                let again = try ferry.run(Self.importArguments(store: store, mode: mode), in: folder)
                try #require(again.status == 0, "trial \(trial): \(again.standardError)")
            }
        default:
            try #require(resume.status == 0, "trial \(trial): \(resume.standardError)")
            let report = try JSONDecoder().decode(ImportResult.self, from: Data(resume.standardOutput.utf8))
            #expect(report.resumed && report.counts == reference.counts, "trial \(trial): \(report.counts)")
            #expect(report.counts.isBalanced, "trial \(trial)")
        }
        if landing == .beforeTheFirstChunk || landing == .midRun || landing == .afterTheLastChunk {
            // The resume marked the killed run killed: no run stays running once its process is gone.
            let statuses = try StoreProbe.rows(store, "SELECT status FROM ferry_runs ORDER BY id").map { $0[0].text }
            #expect(statuses == ["killed", "succeeded"], "trial \(trial): \(statuses)")
        }
        let final = try #require(try StoreProbe.latestRun(store))
        #expect(final.status == "succeeded" && final.counts == reference.counts, "trial \(trial): \(final)")
        #expect(try StoreProbe.integrity(store) == "ok", "trial \(trial)")
        #expect(try StoreProbe.rows(store, Self.itemsSQL) == reference.rows, "trial \(trial): rows differ")
        let runs = try StoreProbe.rows(store, "SELECT id FROM ferry_runs").compactMap { $0[0].integer }
        #expect(
            try StoreProbe.rejectedRecords(store, runs: runs) == Self.input.rejectedRecords(after: Self.records),
            "trial \(trial)")
        #expect(
            try String(contentsOfFile: store + ".rejects.csv", encoding: .utf8) == reference.rejects,
            "trial \(trial): the rejects file differs")
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
