import FerryPipeline
import FerrySQLite
@testable import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The built `ferry snapshot` and `ferry export` killed with SIGKILL at moments spread over a measured run, and a
/// snapshot out of disk space: an output is visible complete or not at all, the next run to the same place
/// succeeds, and it removes what the killed process left (never what a live one is writing).
@Suite(.serialized)
struct OutputCrashTests {
    let ferry = BuiltCommand(product: "ferry")
    static let exportFile = "items.ndjson"

    /// A workspace with the crash-trial store imported as `store.sqlite`.
    func workspace() throws -> URL {
        let folder = try CrashSafetyTests.workspace()
        let imported = try ferry.run(CrashSafetyTests.importArguments(store: "store.sqlite", mode: "batch"), in: folder)
        try #require(imported.status == 0, "\(imported.standardError)")
        return folder
    }

    static func snapshotArguments(_ output: String) -> [String] {
        ["snapshot", "--store", "store.sqlite", "--output", output, "--quiet"]
    }

    static let exportArguments = [
        "export", "--store", "store.sqlite", "--entity", "Item", "--sort", "code", "--output", exportFile, "--quiet",
    ]

    /// Runs `arguments` to completion and returns how long it took.
    func timedRun(_ arguments: [String], in folder: URL) throws -> Double {
        let started = ContinuousClock.now
        let result = try ferry.run(arguments, in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        return (ContinuousClock.now - started).seconds
    }

    /// Starts `arguments`, kills the process with SIGKILL after `delay` seconds and waits for it; whether the
    /// kill landed before the process ended.
    func killed(_ arguments: [String], after delay: Double, in folder: URL) throws -> Bool {
        let process = try ferry.start(arguments, in: folder)
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if process.terminationReason == .exit { #expect(process.terminationStatus == 0) }
        return process.terminationReason == .uncaughtSignal
    }

    /// The names in `folder` starting with `prefix`.
    static func entries(_ folder: URL, startingWith prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// Checks that `folder/snap` is a complete snapshot, when it exists; whether it does.
    func checkSnapshot(_ snapshot: URL, trial: Int) throws -> Bool {
        guard FileManager.default.fileExists(atPath: snapshot.path) else { return false }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: snapshot.path).sorted()
                == ["manifest.json", "store.sqlite"], "trial \(trial)")
        let manifest = try Self.manifest(snapshot.appendingPathComponent("manifest.json"))
        let copy = snapshot.appendingPathComponent("store.sqlite").path
        #expect(manifest["sha256"] as? String == (try FileDigest.sha256Hex(ofFileAt: copy)), "trial \(trial)")
        #expect(try StoreProbe.integrity(copy) == "ok", "trial \(trial)")
        #expect(try StoreProbe.keys(copy) == CrashSafetyTests.input.storedKeys(after: CrashSafetyTests.records))
        return true
    }

    @Test func aSnapshotKilledAtAnyMomentLeavesNoPartOfOneAndTheNextSnapshotSucceedsAndTidiesUp() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let seconds = try timedRun(Self.snapshotArguments("reference"), in: folder)
        var generator = SeededGenerator(seed: 0x5A_4B5E)
        var (landed, leftovers) = (0, 0)
        let trials = 10
        for trial in 0..<trials {
            let snapshot = folder.appendingPathComponent("snap")
            try? FileManager.default.removeItem(at: snapshot)
            let delay = Double.random(in: 0.05...1.0, using: &generator) * seconds
            if try killed(Self.snapshotArguments("snap"), after: delay, in: folder) { landed += 1 }
            // Only a whole snapshot is visible; a killed one leaves at most its hidden folder.
            let complete = try checkSnapshot(snapshot, trial: trial)
            let hidden = try Self.entries(folder, startingWith: ".snap.ferry-tmp-")
            #expect(try Self.entries(folder, startingWith: "snap") == (complete ? ["snap"] : []), "trial \(trial)")
            if !hidden.isEmpty { leftovers += 1 }
            // The next snapshot to the same place succeeds, is whole, and removes what the killed one left.
            if complete { try FileManager.default.removeItem(at: snapshot) }
            let again = try ferry.run(Self.snapshotArguments("snap"), in: folder)
            #expect(again.status == 0, "trial \(trial): \(again.standardError)")
            #expect(try checkSnapshot(snapshot, trial: trial), "trial \(trial)")
            #expect(try Self.entries(folder, startingWith: ".snap.").isEmpty, "trial \(trial)")
        }
        print(
            "snapshot kills: \(trials) over a \(String(format: "%.2f", seconds)) s run, \(landed) before it ended, "
                + "\(leftovers) left a hidden folder")
    }

    @Test func anExportKilledAtAnyMomentLeavesTheOldFileOrNoneAndTheNextExportRemovesItsTemporaryFile() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let seconds = try timedRun(Self.exportArguments, in: folder)
        let output = folder.appendingPathComponent(Self.exportFile)
        let reference = try Data(contentsOf: output)
        let manifest = output.path + ".manifest.json"
        var generator = SeededGenerator(seed: 0xE4_9071)
        var (landed, leftovers) = (0, 0)
        let trials = 10
        for trial in 0..<trials {
            // Every other trial starts with no output: the kill must not leave part of one either.
            if trial % 2 == 1 {
                try FileManager.default.removeItem(at: output)
                try? FileManager.default.removeItem(atPath: manifest)
            }
            let delay = Double.random(in: 0.05...1.0, using: &generator) * seconds
            if try killed(Self.exportArguments, after: delay, in: folder) { landed += 1 }
            if FileManager.default.fileExists(atPath: output.path) {
                #expect(try Data(contentsOf: output) == reference, "trial \(trial): a partial export is visible")
            }
            let hidden = try Self.entries(folder, startingWith: ".\(Self.exportFile)")
            if !hidden.isEmpty { leftovers += 1 }
            let again = try ferry.run(Self.exportArguments, in: folder)
            #expect(again.status == 0, "trial \(trial): \(again.standardError)")
            #expect(try Data(contentsOf: output) == reference, "trial \(trial)")
            #expect(try Self.entries(folder, startingWith: ".\(Self.exportFile)").isEmpty, "trial \(trial): \(hidden)")
        }
        print(
            "export kills: \(trials) over a \(String(format: "%.2f", seconds)) s run, \(landed) before it ended, "
                + "\(leftovers) left a temporary file")
    }

    @Test func theNextOutputRemovesTemporaryFilesOfDeadProcessesOnlyAndOnlyItsOwn() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dead = try Self.finishedProcessID()
        let live = getppid()  // the process that started the tests: alive while they run
        let leftovers = [
            ".\(Self.exportFile).ferry-tmp-\(dead)-1234", ".\(Self.exportFile).manifest.json.ferry-tmp-\(dead)-99",
        ]
        let kept = [
            ".\(Self.exportFile).ferry-tmp-\(live)-1234",  // a live writer's
            ".other.csv.ferry-tmp-\(dead)-1234",  // another output's
            ".\(Self.exportFile).ferry-tmp-x-1",  // not a temporary name
        ]
        for name in leftovers + kept {
            try Data(repeating: 0x7B, count: 10).write(to: folder.appendingPathComponent(name))
        }
        let snapshotLeftover = folder.appendingPathComponent(".snap.ferry-tmp-\(dead)-77/store.sqlite")
        try FileManager.default.createDirectory(
            at: snapshotLeftover.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: snapshotLeftover)
        let liveSnapshot = folder.appendingPathComponent(".snap.ferry-tmp-\(live)-78")
        try FileManager.default.createDirectory(at: liveSnapshot, withIntermediateDirectories: true)

        #expect(try ferry.run(Self.exportArguments, in: folder).status == 0)
        #expect(try ferry.run(Self.snapshotArguments("snap"), in: folder).status == 0)

        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        for name in leftovers { #expect(!names.contains(name), "\(name)") }
        for name in kept { #expect(names.contains(name), "\(name)") }
        #expect(!names.contains(".snap.ferry-tmp-\(dead)-77"))
        #expect(names.contains(".snap.ferry-tmp-\(live)-78"))
    }

    /// RLIMIT_FSIZE stands in for a full disk (see the import's disk-full trial).
    @Test func aSnapshotOutOfDiskSpaceFailsWithAnIOErrorAndLeavesNothing() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let full = try ferry.runWithFileSizeLimit(kibibytes: 128, Self.snapshotArguments("snap"), in: folder)

        #expect(full.status == 74, "\(full.standardError)")
        #expect(try Self.entries(folder, startingWith: "snap").isEmpty)
        #expect(try Self.entries(folder, startingWith: ".snap").isEmpty)
        #expect(try ferry.run(Self.snapshotArguments("snap"), in: folder).status == 0)
        #expect(try checkSnapshot(folder.appendingPathComponent("snap"), trial: 0))
    }

    @Test func theDemoPipelineRunsTwiceReplacingItsSnapshot() throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder)
        #expect(first.status == 0, "\(first.standardError)")
        let snapshot = folder.appendingPathComponent("out/demo/snapshot/manifest.json")
        let before = try Self.manifest(snapshot)["runs"] as? [Any]

        let second = try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder)

        #expect(second.status == 0, "\(second.standardError)")
        let after = try Self.manifest(snapshot)["runs"] as? [Any]
        #expect((after?.count ?? 0) > (before?.count ?? 0), "the new snapshot holds the second run")
        #expect(try Self.entries(folder.appendingPathComponent("out/demo"), startingWith: ".").isEmpty)
        // Without `replace`, a snapshot is never overwritten.
        let again = try ferry.run(
            ["snapshot", "--store", "out/demo/catalog.sqlite", "--output", "out/demo/snapshot"], in: folder)
        #expect(again.status == 74 && again.standardError.contains("never overwrites"), "\(again.standardError)")
    }

    /// A manifest's JSON object.
    static func manifest(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
    }

    /// The ID of a process that has ended (and been reaped).
    static func finishedProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}
