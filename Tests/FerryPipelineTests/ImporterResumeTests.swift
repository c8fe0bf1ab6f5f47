import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Synchronization
import Testing

/// Stopping at a chunk boundary and resuming: nothing partial, nothing twice, the same end state.
struct ImporterResumeTests {
    private static func products(_ count: Int) -> String {
        var text = "sku,name,category,price,quantity,active,created_at\n"
        for number in 1...count {
            let price = number % 7 == 0 ? "oops" : "\(number).50"
            text += "SKU-\(number),Product \(number),Shelf \(number % 3),\(price),\(number),true,2026-01-01\n"
        }
        return text
    }

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func aStoppedRunResumesToTheStateOfAnUninterruptedOne(mode: ImportSpec.Mode) async throws {
        let interrupted = try await ImportFixture()
        let straight = try await ImportFixture()
        let text = Self.products(25)
        let input = try interrupted.file("products.csv", text)
        let configure: (inout ImportSpec) -> Void = {
            $0.mode = mode
            $0.chunkSize = 4
            $0.rejectsPath = nil
        }
        let expected = try await straight.importProducts([try straight.file("products.csv", text)], configure)

        let stop = StopSignal()
        var spec = ImportSpec(entity: "Product", sources: [input])
        spec.relationships = [RelationshipMapping(column: "category", by: "name", createsMissing: true)]
        configure(&spec)
        let importer = Importer(container: interrupted.container)
        let error = await #expect(throws: PipelineError.self) {
            try await importer.run(spec, name: "products", stop: stop) { progress in
                if progress.counts.read >= 8 { stop.raise("SIGTERM") }
            }
        }
        #expect(error?.code == .interrupted)
        // Exactly the committed chunks: two of four records.
        #expect(try interrupted.rows("SELECT count(*) FROM Product") == [[.integer(7)]])

        let resumed = try await importer.run(spec, name: "products", resume: true)

        #expect(resumed.resumed)
        #expect(resumed.counts == expected.counts)
        #expect(resumed.counts.read == 25 && resumed.counts.rejected == 3 && resumed.counts.isBalanced)
        let query = "SELECT p.sku, p.price, c.name FROM Product p JOIN Category c ON c._pk = p.category ORDER BY p.sku"
        #expect(try interrupted.rows(query) == straight.rows(query))
        let ledger = try await RunLedger(store: interrupted.container.persistentStore)
        let runs = try await ledger.runs(pipeline: "products")
        #expect(runs.map(\.status) == [.succeeded, .interrupted])
        #expect(runs.first?.resumedRuns == [runs[1].id])
        #expect(runs.allSatisfy { $0.inputs.first?.sha256?.count == 64 })
    }

    /// A run killed between chunks leaves the ledger as the last chunk's transaction wrote it, so that state must
    /// already hold the chunk's row counts: `--resume` starts from them.
    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func theLedgerCountsCommittedWithEachChunkIncludeItsRowsAndBalance(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.products(25))
        let storePath = fixture.storePath
        let seen = Mutex<[[SQLiteValue]]>([])
        _ = try await fixture.importProducts([input]) { spec in
            spec.mode = mode
            spec.chunkSize = 4
        } progress: { _ in
            // Between chunks the writer is idle: what a reader sees now is what a crash now would leave.
            let connection = try? Connection(path: storePath, mode: .readOnly)
            let row = try? connection?.prepare(
                "SELECT (SELECT count(*) FROM Product), json_extract(counts, '$.inserted'), "
                    + "json_extract(counts, '$.read'), json_extract(counts, '$.rejected'), "
                    + "json_extract(counts, '$.updated') + json_extract(counts, '$.unchanged') "
                    + "FROM ferry_runs ORDER BY id DESC LIMIT 1"
            ).fetchAll().first.map { row in (0..<row.count).map { row[$0] } }
            seen.withLock { $0.append(row ?? []) }
        }

        let snapshots = seen.withLock { $0 }
        #expect(snapshots.count == 7)
        for snapshot in snapshots {
            // rows == inserted, and read == inserted + updated + unchanged + rejected.
            #expect(snapshot.count == 5 && snapshot[0] == snapshot[1], "\(snapshot)")
            if case .integer(let read) = snapshot[2], case .integer(let inserted) = snapshot[1],
                case .integer(let rejected) = snapshot[3], case .integer(let others) = snapshot[4]
            {
                #expect(read == inserted + rejected + others, "\(snapshot)")
            } else {
                Issue.record("unexpected ledger row \(snapshot)")
            }
        }
    }

    /// A run dies after its last chunk but before its rejects file is written (SIGKILL, or the file cannot be
    /// written): the ledger must not say succeeded yet, so that `--resume` writes the file.
    @Test func aRunIsRecordedAsSucceededOnlyOnceItsRejectsFileIsWritten() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.products(10))
        await #expect(throws: (any Error).self) {
            try await fixture.importProducts([input]) { $0.rejectsPath = fixture.path("missing/rejects.csv") }
        }
        #expect(try fixture.rows("SELECT status FROM ferry_runs") == [[.text("failed")]])

        let resumed = try await fixture.importProducts([input], resume: true) {
            $0.rejectsPath = fixture.path("rejects.csv")
        }

        #expect(resumed.resumed && resumed.counts.read == 10 && resumed.counts.rejected == 1)
        #expect(resumed.rejectsPath == fixture.path("rejects.csv"))
        let rejects = try String(contentsOfFile: fixture.path("rejects.csv"), encoding: .utf8)
        #expect(rejects.split(separator: "\n").count == 2 && rejects.contains("SKU-7,"))
    }

    @Test func resumingAfterTheInputChangedIsRefused() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.products(10))
        let stop = StopSignal()
        var spec = ImportSpec(entity: "Product", sources: [input])
        spec.chunkSize = 2
        spec.relationships = [RelationshipMapping(column: "category", by: "name", createsMissing: true)]
        let importer = Importer(container: fixture.container)
        await #expect(throws: PipelineError.self) {
            try await importer.run(spec, name: "products", stop: stop) { _ in stop.raise("SIGINT") }
        }
        _ = try fixture.file("products.csv", Self.products(12))

        let error = await #expect(throws: PipelineError.self) {
            try await importer.run(spec, name: "products", resume: true)
        }
        #expect(error?.code == .cannotResume)
        #expect(error?.message.contains("SHA-256") == true)
    }

    @Test func resumingWithNothingUnfinishedIsRefused() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.products(3))
        _ = try await fixture.importProducts([input])
        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input], resume: true)
        }
        #expect(error?.code == .cannotResume)
    }
}
