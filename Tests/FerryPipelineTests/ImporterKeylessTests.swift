import FerryIO
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline

/// Keyless data (logs, events, a JSON array with no natural key): into an entity without a uniqueness constraint,
/// each import appends its records, as sqlite-utils' insert and dlt's append do.
struct ImporterKeylessTests {
    static func events(_ count: Int) -> String {
        (1...count).map { #"{"level": "info", "n": \#($0 % 3)}"# }.joined(separator: "\n") + "\n"
    }

    /// A store whose model is inferred from `input` without a key, with the fixture's folder.
    static func keylessStore(_ folder: URL, input: String) async throws -> PersistentContainer {
        let spec = ImportSpec(entity: "Event", sources: [input])
        let model = try ModelInference.model(entity: "Event", keys: [], spec: spec)
        let container = PersistentContainer(
            name: "events", model: model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("events.sqlite").path))
        try await container.loadPersistentStores()
        return container
    }

    static func count(_ container: PersistentContainer) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: container.storeDescription.sqlitePath, mode: .readOnly)
        return try connection.prepare("SELECT count(*) FROM Event").fetchAll().map { [$0[0]] }
    }

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func eachImportAppendsItsRecords(mode: ImportSpec.Mode) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("events.ndjson")
        try Data(Self.events(5).utf8).write(to: input)
        let container = try await Self.keylessStore(folder, input: input.path)
        var spec = ImportSpec(entity: "Event", sources: [input.path])
        spec.mode = mode

        let first = try await Importer(container: container).run(spec, name: "events")
        let second = try await Importer(container: container).run(spec, name: "events")

        #expect(container.model.entity(named: "Event")?.uniquenessConstraints == [])
        #expect(first.counts.inserted == 5 && second.counts.inserted == 5 && second.counts.isBalanced)
        #expect(try Self.count(container) == [[.integer(10)]])
    }

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func aStoppedAppendResumesWithoutAppendingItsCommittedChunksTwice(mode: ImportSpec.Mode) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("events.ndjson")
        try Data(Self.events(25).utf8).write(to: input)
        let container = try await Self.keylessStore(folder, input: input.path)
        var spec = ImportSpec(entity: "Event", sources: [input.path])
        spec.mode = mode
        spec.chunkSize = 4
        let importer = Importer(container: container)
        let stop = StopSignal()

        let error = await #expect(throws: PipelineError.self) {
            try await importer.run(spec, name: "events", stop: stop) { progress in
                if progress.counts.read >= 8 { stop.raise("SIGTERM") }
            }
        }
        let committed = try Self.count(container)
        let resumed = try await importer.run(spec, name: "events", resume: true)

        #expect(error?.code == .interrupted)
        #expect(committed == [[.integer(8)]])
        #expect(resumed.resumed && resumed.counts.read == 25 && resumed.counts.inserted == 25)
        #expect(try Self.count(container) == [[.integer(25)]])
    }

    @Test func aFullSyncNeedsAKey() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("events.ndjson")
        try Data(Self.events(2).utf8).write(to: input)
        let container = try await Self.keylessStore(folder, input: input.path)
        var spec = ImportSpec(entity: "Event", sources: [input.path])
        spec.fullSync = FullSync()

        let error = await #expect(throws: PipelineError.self) {
            try await Importer(container: container).run(spec, name: "events")
        }
        #expect(error?.code == .invalidSpec)
        #expect(try Self.count(container) == [[.integer(0)]])
    }
}
