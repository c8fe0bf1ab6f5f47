import FerryTestSupport
import Foundation
import Testing

@testable import FerrySQLite

/// The write-ahead log written in large pieces: committed frames reach the file before the commit returns,
/// uncommitted ones may wait in the buffer, and a connection reads its own buffered frames back.
struct BufferedLogVFSTests {
    /// A database whose writer never checkpoints by itself and holds only a few pages in memory, so a large
    /// transaction writes (spills) pages to the log before it commits.
    final class Fixture {
        let folder: URL
        let path: String
        let writer: Connection

        init() throws {
            folder = try TestSupport.makeTemporaryFolder()
            path = folder.appendingPathComponent("db.sqlite").path
            writer = try Connection(path: path)
            try writer.execute("PRAGMA wal_autocheckpoint = 0")
            try writer.execute("PRAGMA cache_size = 10")
            try writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        }

        deinit {
            try? FileManager.default.removeItem(at: folder)
        }

        /// Inserts rows `ids` of about 1 KiB each (one page per row), or rewrites them when they exist.
        func write(_ ids: Range<Int>, tag: String) throws {
            let upsert = try writer.cachedStatement(
                "INSERT INTO t (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body")
            for id in ids {
                try upsert.bind(Int64(id), at: 1)
                try upsert.bind(tag + String(repeating: "x", count: 1000), at: 2)
                _ = try upsert.step()
                upsert.reset()
            }
        }

        /// The database as a process killed now would leave it: its file and its log copied as they are, opened
        /// elsewhere (SQLite recovers the log from the frames whose checksums hold).
        func crashCopy() throws -> Connection {
            let copy = folder.appendingPathComponent("copy-\(UUID().uuidString).sqlite").path
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
            return try Connection(path: copy)
        }

        func logBytes() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        }
    }

    @Test func aCommittedTransactionIsInTheLogFileWhenItsCommitReturns() throws {
        let fixture = try Fixture()
        try fixture.writer.transaction { try fixture.write(0..<600, tag: "a") }

        let copy = try fixture.crashCopy()
        #expect(try copy.prepare("SELECT count(*) FROM t").fetchOne()?[0].integer == 600)
        #expect(try copy.prepare("PRAGMA integrity_check").fetchOne()?[0].text == "ok")
    }

    @Test func anotherConnectionSeesEveryCommittedRowWhileTheWriterIsOpen() throws {
        let fixture = try Fixture()
        try fixture.writer.transaction { try fixture.write(0..<300, tag: "a") }
        try fixture.writer.transaction { try fixture.write(200..<500, tag: "b") }

        let reader = try Connection(path: fixture.path, mode: .readOnly)
        #expect(try reader.prepare("SELECT count(*) FROM t").fetchOne()?[0].integer == 500)
        #expect(try reader.prepare("SELECT count(*) FROM t WHERE body LIKE 'b%'").fetchOne()?[0].integer == 300)
    }

    @Test func pagesWrittenAgainInOneTransactionReadBackAndRecoverWithTheirLastValues() throws {
        let fixture = try Fixture()
        try fixture.writer.transaction {
            // Each pass rewrites every page the one before spilled to the log: SQLite overwrites those frames in
            // place and rewrites their checksums at the commit.
            try fixture.write(0..<400, tag: "a")
            try fixture.write(0..<400, tag: "b")
            try fixture.write(100..<300, tag: "c")
            let inside = try fixture.writer.prepare("SELECT count(*) FROM t WHERE body LIKE 'c%'").fetchOne()
            #expect(inside?[0].integer == 200)
        }

        let copy = try fixture.crashCopy()
        let tags = try copy.prepare("SELECT substr(body, 1, 1), count(*) FROM t GROUP BY 1 ORDER BY 1").fetchAll()
        #expect(tags.map { $0[0].text ?? "" } == ["b", "c"])
        #expect(tags.map { $0[1].integer ?? 0 } == [200, 200])
        #expect(try copy.prepare("PRAGMA integrity_check").fetchOne()?[0].text == "ok")
    }

    @Test func aKilledWriterLeavesItsCommittedTransactionsAndNoneOfTheOneUnderWay() throws {
        let fixture = try Fixture()
        try fixture.writer.transaction { try fixture.write(0..<300, tag: "a") }
        try fixture.writer.execute("BEGIN")
        try fixture.write(0..<600, tag: "b")
        // Some of the running transaction's pages may wait in the buffer: they were never committed.
        let copy = try fixture.crashCopy()
        try fixture.writer.execute("ROLLBACK")

        #expect(try copy.prepare("SELECT count(*) FROM t").fetchOne()?[0].integer == 300)
        #expect(try copy.prepare("SELECT count(*) FROM t WHERE body LIKE 'a%'").fetchOne()?[0].integer == 300)
        #expect(try copy.prepare("PRAGMA integrity_check").fetchOne()?[0].text == "ok")
    }

    @Test func theLogHoldsWholeFramesAfterACommitThatSpilledPages() throws {
        let fixture = try Fixture()
        try fixture.writer.transaction { try fixture.write(0..<10, tag: "a") }
        try fixture.writer.transaction {
            try fixture.write(10..<400, tag: "b")
            try fixture.write(0..<50, tag: "c")
        }
        // A 32-byte file header, then frames of a 24-byte header and a 4 KiB page each, written once.
        let frames = (try fixture.logBytes() - 32) / (24 + 4096)
        #expect(try fixture.logBytes() == 32 + frames * (24 + 4096))
        #expect(frames > 100)
    }
}
