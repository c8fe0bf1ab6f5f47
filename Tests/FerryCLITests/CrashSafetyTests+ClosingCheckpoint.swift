import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// A disk that fills when the run copies its write-ahead log into the store file, at its end.
extension CrashSafetyTests {
    /// An import of `file` (a bigger version of items.csv) into `store`, in chunks of 5,000 records.
    static func importArguments(of file: String, store: String) -> [String] {
        importArguments(store: store, mode: "batch", chunk: 5_000).map { $0 == "items.csv" ? file : $0 }
    }

    /// RLIMIT_FSIZE stands in for a full disk (see the test above). A second import adds 4,000 records in a few
    /// large chunks: they fit in the log, which starts empty, but the store file must grow to take them, and may
    /// grow only halfway to the size the same import gives it on an unlimited disk.
    @Test func aFullDiskAtTheClosingCheckpointFailsTheRunWithAnIOErrorAndItsResumeFinishesIt() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let more = CrashTrialInput(count: Self.records + 4_000)
        try Data(more.csv.utf8).write(to: folder.appendingPathComponent("more.csv"))
        for store in ["full.sqlite", "reference.sqlite"] {
            let first = try ferry.run(Self.importArguments(store: store, mode: "batch"), in: folder)
            try #require(first.status == 0, "\(first.standardError)")
        }
        let reference = try ferry.run(Self.importArguments(of: "more.csv", store: "reference.sqlite"), in: folder)
        try #require(reference.status == 0, "\(reference.standardError)")
        let path = folder.appendingPathComponent("full.sqlite").path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let grown = try #require(
            try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("reference.sqlite").path)[
                .size] as? Int)
        // Both sizes are whole: a run copies its log into the store file before it exits 0.
        try #require(grown > size + 64 * 1024, "\(size) → \(grown) bytes")
        let full = try ferry.runWithFileSizeLimit(
            kibibytes: (size + grown) / 2 / 1024, Self.importArguments(of: "more.csv", store: "full.sqlite"), in: folder
        )
        let message = full.standardError

        #expect(full.status == 74, "\(message)")
        #expect(message.contains("copying the write-ahead log into the store file failed"), "\(message)")
        let run = try #require(try StoreProbe.latestRun(path))
        #expect(run.status == "failed", "\(run)")
        // Nothing committed is lost: it is in the log, which any reader sees.
        #expect(try StoreProbe.integrity(path) == "ok")
        #expect(try StoreProbe.keys(path) == more.storedKeys(after: more.count))

        let resume = try ferry.run(
            Self.importArguments(of: "more.csv", store: "full.sqlite") + ["--resume", "--json"], in: folder)

        #expect(resume.status == 0, "\(resume.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(resume.standardOutput.utf8))
        let expected = try #require(try StoreProbe.latestRun(folder.appendingPathComponent("reference.sqlite").path))
        #expect(report.resumed && report.counts == expected.counts, "\(report.counts) \(expected.counts)")
        #expect(try StoreProbe.latestRun(path)?.status == "succeeded")
        // Nothing is left only in the log: the store file alone holds every row.
        let alone = folder.appendingPathComponent("alone.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: alone)
        let connection = try Connection(path: alone)
        let rows = try withExtendedLifetime(connection) { try connection.prepare(Self.itemsSQL).fetchAll() }
        #expect(try rows == StoreProbe.rows(folder.appendingPathComponent("reference.sqlite").path, Self.itemsSQL))
        #expect(
            try StoreProbe.rows(path, Self.itemsSQL)
                == StoreProbe.rows(folder.appendingPathComponent("reference.sqlite").path, Self.itemsSQL))
    }
}
