import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Synchronization
import Testing

/// `--resume` continues a run only over the inputs it read: their identity (size and modification time) is in the
/// ledger before the first chunk commits, their SHA-256 as soon as it is known, and a resume that cannot check them
/// refuses. And the run after one whose process died marks it killed.
struct ImporterInputIdentityTests {
    private static func products(_ count: Int) -> String {
        var text = "sku,name,category,price,quantity,active,created_at\n"
        for number in 1...count {
            text += "SKU-\(number),Product \(number),Shelf \(number % 3),\(number).50,\(number),true,2026-01-01\n"
        }
        return text
    }

    /// Stops a run of `input` after its first chunk (chunks of 2) and returns its ledger row's number.
    private static func stopAfterFirstChunk(_ fixture: ImportFixture, _ input: String) async throws -> Int64 {
        let stop = StopSignal()
        await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input], stop: stop, progress: { _ in stop.raise("SIGKILL") })
        }
        let id = try fixture.rows("SELECT max(id) FROM ferry_runs").first?[0].integer
        return try #require(id)
    }

    /// Rewrites run `id` as a run killed before its inputs' SHA-256 was recorded leaves it: running, and its inputs
    /// as recorded when it started (`inputs`, a JSON array).
    private static func asKilledBeforeItsDigest(_ fixture: ImportFixture, run id: Int64, inputs: String) throws {
        let connection = try Connection(path: fixture.storePath)
        let update = try connection.prepare("UPDATE ferry_runs SET status = 'running', inputs = ? WHERE id = ?")
        try update.bind([.text(inputs), .integer(id)])
        try update.run()
    }

    /// The inputs the latest run recorded, as a read-only connection sees them now.
    private static func latestInputs(_ storePath: String) -> String {
        guard let connection = try? Connection(path: storePath, mode: .readOnly) else { return "" }
        return withExtendedLifetime(connection) {
            let select = try? connection.prepare("SELECT inputs FROM ferry_runs ORDER BY id DESC LIMIT 1")
            return (try? select?.fetchOne()?[0].text) ?? ""
        }
    }

    @Test func aRunRecordsItsInputsSizeAndModificationTimeBeforeItsFirstChunkCommits() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.products(10))
        let storePath = fixture.storePath
        let seen = Mutex<[String]>([])
        // After each chunk's commit: what a kill now would leave.
        let progress: @Sendable (ImportProgress) -> Void = { _ in
            seen.withLock { $0.append(Self.latestInputs(storePath)) }
        }
        _ = try await fixture.importProducts([input], progress: progress)

        let first = try #require(seen.withLock { $0.first })
        let recorded = try JSONDecoder().decode([InputDigest].self, from: Data(first.utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: input)
        let modified = try #require(attributes[.modificationDate] as? Date)
        #expect(recorded.count == 1 && recorded.first?.path == input)
        #expect(recorded.first?.bytes == (attributes[.size] as? Int))
        let nanoseconds = try #require(recorded.first?.modified)
        #expect(abs(Double(nanoseconds) / 1e9 - modified.timeIntervalSince1970) < 0.001)
    }

    @Test func aResumeRefusesAnInputChangedToTheSameSizeWhenTheKilledRunRecordedNoSHA256() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.products(10))
        let run = try await Self.stopAfterFirstChunk(fixture, input)
        let recorded = try #require(try fixture.rows("SELECT inputs FROM ferry_runs WHERE id = \(run)").first?[0].text)
        // The run as a kill before its digest leaves it: the identity it recorded at its start, no SHA-256.
        var inputs = try JSONDecoder().decode([InputDigest].self, from: Data(recorded.utf8))
        inputs[0].sha256 = nil
        try Self.asKilledBeforeItsDigest(
            fixture, run: run, inputs: String(decoding: try JSONEncoder().encode(inputs), as: UTF8.self))
        // Same size, other bytes, written later.
        let sameSize = String(Self.products(10).map { $0 == "P" ? "Q" : $0 })
        _ = try fixture.file("products.csv", sameSize)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: input)
        #expect(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int == inputs[0].bytes)

        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input], resume: true)
        }

        #expect(error?.code == .cannotResume)
        #expect(error?.message.contains("modification time") == true, "\(String(describing: error))")
        #expect(try fixture.rows("SELECT count(*) FROM Product") == [[.integer(2)]])
    }

    @Test func aResumeContinuesAnUnchangedInputWhenTheKilledRunRecordedNoSHA256() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.products(10))
        let run = try await Self.stopAfterFirstChunk(fixture, input)
        let recorded = try #require(try fixture.rows("SELECT inputs FROM ferry_runs WHERE id = \(run)").first?[0].text)
        var inputs = try JSONDecoder().decode([InputDigest].self, from: Data(recorded.utf8))
        inputs[0].sha256 = nil
        try Self.asKilledBeforeItsDigest(
            fixture, run: run, inputs: String(decoding: try JSONEncoder().encode(inputs), as: UTF8.self))

        let resumed = try await fixture.importProducts([input], resume: true)

        #expect(resumed.resumed && resumed.counts.read == 10 && resumed.counts.inserted == 10)
        #expect(resumed.inputs.first?.sha256?.count == 64)
    }

    @Test func aResumeRefusesWhenTheKilledRunRecordedNothingOfItsInputs() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.products(10))
        let run = try await Self.stopAfterFirstChunk(fixture, input)
        try Self.asKilledBeforeItsDigest(fixture, run: run, inputs: "[]")

        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input], resume: true)
        }

        #expect(error?.code == .cannotResume)
        #expect(error?.message.contains("cannot be checked") == true, "\(String(describing: error))")
    }

    @Test func theNextRunMarksARunItsProcessLeftRunningAsKilled() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.products(4))
        let ledger = try await RunLedger(store: fixture.container.persistentStore)
        let dead = try await ledger.start(pipeline: "products")
        // As a process that died leaves it: running, under a process ID that is gone (a running row of this very
        // process is a live run, such as a pipeline's while its steps run).
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let endedID = ended.processIdentifier
        try await fixture.container.persistentStore.writer.run { connection in
            try connection.execute("UPDATE ferry_runs SET pid = \(endedID) WHERE id = \(dead)")
        }

        let result = try await fixture.importProducts([input])

        let runs = try await ledger.runs(pipeline: "products")
        #expect(runs.map(\.id) == [result.run, dead])
        #expect(runs.map(\.status) == [.succeeded, .killed])
    }
}
