import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// A `ferry import` killed (or starved of disk) while it creates its store or commits its first chunk: the store's
/// path holds either nothing or a whole Ferry store, and the next run, without a model file (so it reads the model
/// the store keeps), reaches the state of an uninterrupted run.
extension CrashSafetyTests {
    /// An import into a new store with a model inferred from the records, as a nightly job's first run would.
    static func inferringArguments(store: String) -> [String] {
        [
            "import", "items.csv", "--store", store, "--entity", "Item", "--key", "code", "--chunk",
            String(chunk), "--quiet",
        ]
    }

    /// The rows of an uninterrupted import without a model file.
    func inferredReference(in folder: URL) throws -> [Row] {
        let result = try ferry.run(Self.inferringArguments(store: "inferred.sqlite"), in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        return try StoreProbe.rows(folder.appendingPathComponent("inferred.sqlite").path, Self.itemsSQL)
    }

    /// Checks what a killed run left at `store`, runs the next import (resuming the killed run when it recorded
    /// one) and compares the end state with `reference`.
    func checkNextRunFinishes(_ store: String, reference: [Row], in folder: URL, trial: String) throws {
        if FileManager.default.fileExists(atPath: store) {
            // Never a half-made store: the metadata is there, and the file is sound.
            #expect(try StoreProbe.hasTable(store, "ferry_metadata"), "\(trial): a store without Ferry metadata")
            #expect(try StoreProbe.integrity(store) == "ok", "\(trial)")
        }
        let killed = try StoreProbe.latestRun(store)
        if let killed {
            // Running when the kill landed mid-run; succeeded when the run ended before it.
            #expect(killed.status == "running" || killed.status == "succeeded", "\(trial): \(killed)")
            let records = killed.checkpoint?.records ?? 0
            #expect(records % Self.chunk == 0 || records == Self.records, "\(trial): a partial chunk \(records)")
        }
        let resumable = killed.map { $0.status != "succeeded" } ?? false
        let next = try ferry.run(Self.inferringArguments(store: store) + (resumable ? ["--resume"] : []), in: folder)
        try #require(next.status == 0, "\(trial): \(next.standardError)")
        #expect(try StoreProbe.integrity(store) == "ok", "\(trial)")
        #expect(try StoreProbe.rows(store, Self.itemsSQL) == reference, "\(trial): rows differ")
        if let killed, killed.status == "running" {
            // The next run marked the dead one killed, and `ferry inspect` says so.
            #expect(try Self.inspectedStatuses(store, ferry: ferry, in: folder).first == "killed", "\(trial)")
        }
    }

    /// The statuses of the runs `ferry inspect --json` lists, oldest first.
    static func inspectedStatuses(_ store: String, ferry: BuiltCommand, in folder: URL) throws -> [String] {
        let inspect = try ferry.run(["inspect", "--store", store, "--json"], in: folder)
        try #require(inspect.status == 0, "\(inspect.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(inspect.standardOutput.utf8)) as? [String: Any]
        let runs = object?["runs"] as? [[String: Any]] ?? []
        return runs.reversed().compactMap { $0["status"] as? String }
    }

    @Test func aRunKilledTheMomentItsNewStoreFileAppearsLeavesAStoreTheNextRunAccepts() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = try inferredReference(in: folder)
        var appeared = 0
        for trial in 0..<6 {
            let store = folder.appendingPathComponent("appear-\(trial).sqlite").path
            let process = try ferry.start(Self.inferringArguments(store: store), in: folder)
            // Until the file is at its path; a new store that showed before it was whole would be caught here.
            while process.isRunning && access(store, F_OK) != 0 {}
            if process.isRunning { appeared += 1 }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try checkNextRunFinishes(store, reference: reference, in: folder, trial: "trial \(trial)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasPrefix(".appear-\(trial).sqlite.ferry-new-")
            }
            #expect(leftovers.isEmpty, "trial \(trial): \(leftovers)")
        }
        print("creation kills: \(appeared) of 6 landed as the store file appeared, the rest after the run ended")
    }

    @Test func aRunKilledWhileItCreatesItsStoreOrCommitsItsFirstChunkIsFinishedByTheNextRun() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Measured, not assumed: how long a run takes to create its store and commit its first chunk here, now.
        let store = folder.appendingPathComponent("measured.sqlite").path
        let started = ContinuousClock.now
        let process = try ferry.start(Self.inferringArguments(store: store), in: folder)
        var firstChunk: Double?
        while process.isRunning && firstChunk == nil {
            if let run = try? StoreProbe.latestRun(store), run.checkpoint != nil {
                firstChunk = (ContinuousClock.now - started).seconds
            }
        }
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let span = firstChunk ?? (ContinuousClock.now - started).seconds
        let reference = try StoreProbe.rows(store, Self.itemsSQL)
        #expect(try reference == inferredReference(in: folder))

        // Kills spread over that span, one in each of its eighths: launch, store creation, the first chunk.
        var generator = SeededGenerator(seed: 0xC2EA7E)
        let trials = 8
        for trial in 0..<trials {
            let store = folder.appendingPathComponent("early-\(trial).sqlite").path
            let fraction = (Double(trial) + Double.random(in: 0..<1, using: &generator)) / Double(trials)
            let process = try ferry.start(Self.inferringArguments(store: store), in: folder)
            Thread.sleep(forTimeInterval: fraction * span)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try checkNextRunFinishes(
                store, reference: reference, in: folder, trial: "kill at \(String(format: "%.3f", fraction * span)) s")
        }
    }

    /// RLIMIT_FSIZE stands in for a full disk while the store is created: its first page cannot be written.
    @Test func aRunThatCannotCreateItsStoreLeavesNoFileAndTheNextRunCreatesIt() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = try inferredReference(in: folder)
        let store = folder.appendingPathComponent("starved.sqlite").path
        // 2 KiB: the lock file fits; a database page does not.
        let starved = try ferry.runWithFileSizeLimit(kibibytes: 2, Self.inferringArguments(store: store), in: folder)

        #expect(starved.status == 74, "\(starved.standardError)")
        #expect(!FileManager.default.fileExists(atPath: store))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasPrefix(".starved.sqlite.")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
        try checkNextRunFinishes(store, reference: reference, in: folder, trial: "after a full disk")
    }
}
