import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// Readers during an import, and an import that runs out of disk.
extension CrashSafetyTests {
    /// One read transaction's view: the latest run, the rows and the run's rejects.
    struct Snapshot {
        var run: StoreProbe.Run
        var rows: Int
        var rejects: Int
    }

    /// Reads the ledger and the rows in one read transaction; `nil` while the store has no ledger or table yet.
    static func snapshot(_ store: String) throws -> Snapshot? {
        let connection = try Connection(path: store, mode: .readOnly)
        try connection.execute("BEGIN DEFERRED")
        defer { try? connection.execute("COMMIT") }
        let tables = try connection.prepare(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('ferry_runs', 'ferry_rejects', 'Item')"
        ).fetchAll()
        guard tables.first?[0].integer == 3,
            let row = try connection.prepare(
                "SELECT id, status, pid, checkpoint, counts, resumes FROM ferry_runs ORDER BY id DESC LIMIT 1"
            ).fetchAll().first
        else { return nil }
        let run = StoreProbe.run(from: row)
        let rows = try connection.prepare("SELECT count(*) FROM Item").fetchAll().first?[0].integer ?? -1
        let rejects =
            try connection.prepare("SELECT count(*) FROM ferry_rejects WHERE run = \(run.id)").fetchAll().first?[0]
            .integer ?? -1
        return Snapshot(run: run, rows: Int(rows), rejects: Int(rejects))
    }

    @Test(arguments: ["batch", "context"])
    func aReaderDuringAnImportAlwaysSeesWholeChunksThatAgreeWithTheLedger(mode: String) throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("read.sqlite").path
        let chunk = 200
        let process = try ferry.start(Self.importArguments(store: store, mode: mode, chunk: chunk), in: folder)
        var checkpoints: Set<Int> = []
        var reads = 0
        var problems: [String] = []
        while process.isRunning && problems.isEmpty {
            // Until the run has created its store, opening it may fail; after that, nothing may.
            guard FileManager.default.fileExists(atPath: store), let snapshot = try? Self.snapshot(store) else {
                continue
            }
            reads += 1
            let records = snapshot.run.checkpoint?.records ?? 0
            checkpoints.insert(records)
            let possible = Self.input.possibleCounts(after: records)
            let expected = possible.first { $0 == snapshot.run.counts } ?? possible[0]
            if records % chunk != 0 && records != Self.records {
                problems.append("a checkpoint inside a chunk: \(records)")
            }
            if snapshot.rows != snapshot.run.counts.inserted || snapshot.rows != expected.inserted
                || snapshot.run.counts != expected || snapshot.rejects != expected.rejected
            {
                problems.append(
                    "after \(records) records: \(snapshot.rows) rows, \(snapshot.rejects) rejects, ledger "
                        + "\(snapshot.run.counts); expected \(expected)")
            }
        }
        process.waitUntilExit()

        #expect(problems.isEmpty, "\(problems)")
        #expect(process.terminationStatus == 0)
        let final = try #require(try Self.snapshot(store))
        #expect(final.run.status == "succeeded" && final.rows == Self.input.counts(after: Self.records).inserted)
        // The reader must have seen the run between chunks, or it proved nothing.
        let between = checkpoints.filter { $0 > 0 && $0 < Self.records }
        print("reader (\(mode)): \(reads) read transactions saw \(between.count) distinct checkpoints mid-run")
        #expect(between.count >= 3, "\(reads) reads, checkpoints \(checkpoints.sorted())")
    }

    /// RLIMIT_FSIZE stands in for a full disk: with SIGXFSZ ignored, a write past the limit fails with EFBIG, and
    /// SQLite reports it as it reports a failed write on a full disk.
    @Test(arguments: ["batch", "context"])
    func aFullDiskStopsTheImportWithAnIOErrorAnIntactStoreAndAResumableRun(mode: String) throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = "full.sqlite"
        let path = folder.appendingPathComponent(store).path
        // 512 KiB: the full store takes about 2 MiB.
        let full = try ferry.runWithFileSizeLimit(
            kibibytes: 512, Self.importArguments(store: store, mode: mode), in: folder)
        let message = full.standardError

        #expect(full.status == 74, "\(message)")
        #expect(message.contains("ferry: error: \(store): "), "\(message)")
        #expect(message.contains("disk I/O error") && message.contains("while running: COMMIT"), "\(message)")
        #expect(try StoreProbe.integrity(path) == "ok")
        let run = try #require(try StoreProbe.latestRun(path))
        let records = run.checkpoint?.records ?? 0
        #expect(run.status == "failed" && records > 0 && records < Self.records, "\(run)")
        #expect(try StoreProbe.keys(path) == Self.input.storedKeys(after: records))
        // A batch run could not build the indexes it deferred either: the rows and the ledger still agree, and the
        // resume builds them first.
        let rows = try StoreProbe.rows(path, "SELECT count(*) FROM Item").first?[0].integer ?? -1
        #expect(rows == Int64(run.counts.inserted), "\(run)")
        #expect(Self.input.possibleCounts(after: records).contains(run.counts), "\(run)")

        let resume = try ferry.run(Self.importArguments(store: store, mode: mode) + ["--resume", "--json"], in: folder)

        #expect(resume.status == 0, "\(resume.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(resume.standardOutput.utf8))
        #expect(report.resumed && report.counts == Self.input.counts(after: Self.records))
        #expect(try StoreProbe.integrity(path) == "ok")
        #expect(try StoreProbe.keys(path) == Self.input.storedKeys(after: Self.records))
        let runs = try StoreProbe.rows(path, "SELECT id FROM ferry_runs").compactMap { $0[0].integer }
        #expect(try StoreProbe.rejectedRecords(path, runs: runs) == Self.input.rejectedRecords(after: Self.records))
    }
}
