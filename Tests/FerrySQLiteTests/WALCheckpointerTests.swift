import FerryTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import FerrySQLite

/// Checkpoints on a connection of their own, asked for by the writer's commits.
struct WALCheckpointerTests {
    /// A database whose writer leaves its checkpoints to a checkpointer from `threshold` pages of log.
    final class Fixture {
        let folder: URL
        let path: String
        let writer: Connection
        let checkpointer: WALCheckpointer

        init(threshold: Int, logger: Logger = Logger(label: "ferry.sqlite")) throws {
            folder = try TestSupport.makeTemporaryFolder()
            path = folder.appendingPathComponent("db.sqlite").path
            writer = try Connection(path: path)
            try writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
            checkpointer = WALCheckpointer(
                path: path, thresholdPages: threshold, synchronous: "NORMAL", logger: logger)
            checkpointer.attach(to: writer)
        }

        deinit {
            try? FileManager.default.removeItem(at: folder)
        }

        /// Commits `rows` rows of 1 KiB each in one transaction (about one page per row).
        func commit(rows: Int) throws {
            try writer.transaction {
                let insert = try writer.cachedStatement("INSERT INTO t (body) VALUES (?)")
                let body = String(repeating: "x", count: 1024)
                for _ in 0..<rows {
                    try insert.bind(body, at: 1)
                    _ = try insert.step()
                    insert.reset()
                }
            }
        }

        func databaseBytes() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        }
    }

    @Test func aCommitPastTheThresholdIsCopiedIntoTheDatabaseByTheCheckpointer() throws {
        let fixture = try Fixture(threshold: 100)
        let before = try fixture.databaseBytes()
        try fixture.commit(rows: 500)
        fixture.checkpointer.waitUntilIdle()

        // The rows' pages are in the database file now, not only in the log.
        #expect(try fixture.databaseBytes() >= before + 500 * 1024)
        let (log, copied) = try fixture.checkpointer.checkpoint()
        #expect(log == copied)
    }

    @Test func aCommitHookThatAsksForACheckpointGetsOneInsideTheCommit() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let writer = try Connection(path: path)
        try writer.execute("CREATE TABLE t (body TEXT)")
        writer.onCommitToLog { pages in pages >= 100 }
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        try writer.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) "
                + "INSERT INTO t SELECT zeroblob(1024) FROM n")

        // No other connection: the pages reached the database in the commit itself.
        let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(after >= before + 300 * 1024)
    }

    @Test func theWritersOwnAutomaticCheckpointsStop() throws {
        // 1,500 pages of log: SQLite's automatic checkpoint (from 1,000 pages) would copy them in the commit.
        let fixture = try Fixture(threshold: 1_000_000)
        let before = try fixture.databaseBytes()
        try fixture.commit(rows: 1500)
        fixture.checkpointer.waitUntilIdle()

        #expect(try fixture.databaseBytes() == before)
        let rows = try fixture.writer.prepare("SELECT count(*) FROM t").fetchOne()
        #expect(rows == Row([.integer(1500)]))
    }

    /// A checkpoint that finds another connection checkpointing (here, one holding the database in exclusive locking
    /// mode stands in for the writer checkpointing itself) is skipped without a warning: the run is fine.
    @Test func aCheckpointRefusedBecauseAnotherIsUnderWayIsNoWarning() throws {
        let log = CapturedLog()
        let fixture = try Fixture(threshold: 1, logger: Logger(label: "test") { _ in CapturedLog.Handler(log: log) })
        try fixture.writer.execute("PRAGMA locking_mode = EXCLUSIVE")
        // The commit asks the checkpointer for a checkpoint, which the writer's lock refuses.
        try fixture.commit(rows: 1)
        fixture.checkpointer.waitUntilIdle()

        let busy = try #require(log.entries.first)
        #expect(busy.level == .debug && busy.message.contains("another connection is checkpointing"))
        #expect(!log.entries.contains { $0.level >= .warning }, "\(log.entries)")
    }
}
