import FerryIO
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Synchronization
import Testing

@testable import FerryPipeline

/// `replace: true` (`--replace`): the records replace a keyless entity's rows at once. Readers see the old rows until
/// the last chunk is in; a run that fails or stops leaves them as they were.
struct ImporterReplaceTests {
    /// NDJSON events `from...to`, their `n` holding the number; `bad` numbers get a text `n`, which is rejected.
    static func events(_ numbers: ClosedRange<Int>, bad: Set<Int> = []) -> String {
        numbers.map { bad.contains($0) ? #"{"level": "x", "n": "oops"}"# : #"{"level": "info", "n": \#($0)}"# }
            .joined(separator: "\n") + "\n"
    }

    static func numbers(_ container: PersistentContainer) throws -> [Int64] {
        let connection = try Connection(path: container.storeDescription.sqlitePath, mode: .readOnly)
        return try connection.prepare("SELECT n FROM Event ORDER BY n").fetchAll().compactMap { $0[0].integer }
    }

    /// A keyless store holding events 1...5, and a spec replacing them from `input` (written with `text`).
    static func storeWithFiveEvents(_ folder: URL, replacing text: String, mode: ImportSpec.Mode) async throws
        -> (PersistentContainer, ImportSpec)
    {
        let first = folder.appendingPathComponent("first.ndjson")
        try Data(events(1...5).utf8).write(to: first)
        let container = try await ImporterKeylessTests.keylessStore(folder, input: first.path)
        var append = ImportSpec(entity: "Event", sources: [first.path])
        append.mode = mode
        _ = try await Importer(container: container).run(append, name: "first")
        let input = folder.appendingPathComponent("replacing.ndjson")
        try Data(text.utf8).write(to: input)
        var spec = ImportSpec(entity: "Event", sources: [input.path])
        spec.mode = mode
        spec.replacesRows = true
        spec.chunkSize = 4
        return (container, spec)
    }

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func theRecordsReplaceTheStoredRowsWhichReadersSeeUntilTheEnd(mode: ImportSpec.Mode) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (container, spec) = try await Self.storeWithFiveEvents(folder, replacing: Self.events(11...20), mode: mode)
        let seen = Mutex<[[Int64]]>([])

        let result = try await Importer(container: container).run(spec, name: "events") { _ in
            // After each committed chunk, another connection still reads the old rows.
            if let numbers = try? Self.numbers(container) { seen.withLock { $0.append(numbers) } }
        }

        #expect(result.replaced == true && result.appended == nil)
        #expect(result.counts.read == 10 && result.counts.inserted == 10 && result.counts.deleted == 5)
        #expect(result.counts.isBalanced)
        #expect(try Self.numbers(container) == Array(11...20))
        #expect(seen.withLock { $0 } == Array(repeating: Array(1...5), count: 3))
        #expect(RunReport.summary(result).contains("5 deleted") && RunReport.summary(result).contains("(replaced: no key)"))
    }

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func aReplaceOverItsRejectLimitLeavesTheOldRowsAndReportsItsRejects(mode: ImportSpec.Mode) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var (container, spec) = try await Self.storeWithFiveEvents(
            folder, replacing: Self.events(11...22, bad: [12, 21]), mode: mode)
        spec.maxRejects = .count(1)
        spec.rejectsPath = folder.appendingPathComponent("rejects.ndjson").path

        let error = await #expect(throws: PipelineError.self) {
            try await Importer(container: container).run(spec, name: "events")
        }

        #expect(error?.code == .tooManyRejects)
        #expect(try Self.numbers(container) == Array(1...5))
        // Both rejects are in the file, the one of a chunk that had committed inside the replace included.
        let rejects = try String(contentsOfFile: spec.rejectsPath ?? "", encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(rejects.map { $0?["_record"] as? Int } == [2, 11])
        // The ledger says the failed run committed nothing.
        let ledger = try await RunLedger(store: container.persistentStore)
        let runs = try await ledger.runs(limit: 10)
        let failed = try #require(runs.first { $0.pipeline == "events" })
        #expect(failed.status == .failed && failed.counts.read == 0 && failed.counts.inserted == 0)
    }

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func aStoppedReplaceLeavesTheOldRowsAndItsResumeReplacesFromTheFirstRecord(mode: ImportSpec.Mode) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (container, spec) = try await Self.storeWithFiveEvents(folder, replacing: Self.events(11...22), mode: mode)
        let importer = Importer(container: container)
        let stop = StopSignal()

        let error = await #expect(throws: PipelineError.self) {
            try await importer.run(spec, name: "events", stop: stop) { progress in
                if progress.counts.read >= 8 { stop.raise("SIGTERM") }
            }
        }
        let afterStop = try Self.numbers(container)
        let resumed = try await importer.run(spec, name: "events", resume: true)

        #expect(error?.code == .interrupted)
        #expect(afterStop == Array(1...5))
        #expect(resumed.counts.read == 12 && resumed.counts.inserted == 12 && resumed.counts.deleted == 5)
        #expect(try Self.numbers(container) == Array(11...22))
    }

    @Test func aReplaceOfAnEntityWithAKeyIsRefusedBeforeAnythingIsWritten() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", ImportFixture.products)

        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input]) { $0.replacesRows = true }
        }

        #expect(error?.code == .invalidSpec && error?.message.contains("fullSync") == true)
        #expect(try fixture.rows("SELECT count(*) FROM Product") == [[.integer(0)]])
    }
}
