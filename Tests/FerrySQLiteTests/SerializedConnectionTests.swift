import FerryTestSupport
import Foundation
import Testing

@testable import FerrySQLite

/// SerializedConnection: one queue per connection, work serialized, the cooperative pool never blocked.
struct SerializedConnectionTests {
    @Test func concurrentTasksAreSerializedOnTheConnectionsQueue() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try SerializedConnection(
            path: folder.appendingPathComponent("s.sqlite").path, label: "test.writer")
        try await writer.run { try $0.execute("CREATE TABLE t (v INTEGER)") }
        // Each task reads the count and writes count + 1 inside one transaction; if two ever overlapped on the
        // connection, a value would repeat (or SQLite would refuse a nested BEGIN).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await writer.run { connection in
                        try connection.transaction {
                            let count = try connection.prepare("SELECT count(*) FROM t").fetchOne()?[0].integer ?? -1
                            try connection.execute("INSERT INTO t VALUES (\(count + 1))")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let values = try writer.sync { try $0.prepare("SELECT v FROM t ORDER BY v").fetchAll().map { $0[0] } }
        #expect(values == (1...50).map { .integer(Int64($0)) })
    }

    @Test func workRunsOnTheConnectionsQueueAndNestedCallsDoNotDeadlock() async throws {
        let connection = try SerializedConnection(path: ":memory:", label: "test.memory")
        #expect(!connection.isOnQueue)
        let nested = try await connection.run { _ in
            // Already on the queue: sync runs at once instead of waiting for itself.
            connection.isOnQueue && connection.sync { _ in connection.isOnQueue }
        }
        #expect(nested)
    }

    @Test func errorsReachTheCaller() async throws {
        let connection = try SerializedConnection(path: ":memory:", label: "test.errors")
        await #expect(throws: SQLiteError.self) {
            try await connection.run { try $0.execute("SELEC 1") }
        }
        #expect(throws: SQLiteError.self) { try connection.sync { try $0.execute("SELEC 1") } }
    }

    @Test func closingRemovesTheLogWhileTheConnectionIsStillReferencedAndLaterWorkFails() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("c.sqlite").path
        let writer = try SerializedConnection(path: path, label: "test.close")
        try await writer.run { try $0.execute("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (7)") }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))

        await writer.close()
        // `writer` is still referenced here: only the explicit close can have removed the log.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        await #expect(throws: SQLiteError.self) { try await writer.run { _ in 1 } }
        await writer.close()  // twice: nothing happens

        let reader = try Connection(path: path, mode: .readOnly)
        #expect(try reader.prepare("SELECT v FROM t").fetchOne() == Row([.integer(7)]))
    }

    @Test func runAndCloseReturnsTheResultWithTheConnectionClosed() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("r.sqlite").path
        let writer = try SerializedConnection(path: path, label: "test.writer")
        try await writer.run { try $0.execute("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (3)") }
        await writer.close()

        let reader = try SerializedConnection(path: path, label: "test.once")
        let value = try await reader.runAndClose { try $0.prepare("SELECT v FROM t").fetchOne()?[0].integer }
        #expect(value == 3)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        await #expect(throws: SQLiteError.self) { try await reader.run { _ in 1 } }

        // A body that throws closes the connection too.
        let failing = try SerializedConnection(path: path, label: "test.failing")
        await #expect(throws: SQLiteError.self) {
            try await failing.runAndClose { try $0.execute("SELECT * FROM missing") }
        }
        await #expect(throws: SQLiteError.self) { try await failing.run { _ in 1 } }
    }
}
