import Foundation
import FerryTestSupport
import Logging
import Testing

@testable import FerrySQLite

/// Connection and Statement on real SQLite files in temporary folders.
struct ConnectionTests {
    func withDatabase<Result>(_ body: (Connection, String) throws -> Result) throws -> Result {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("test.sqlite").path
            return try body(try Connection(path: path), path)
        }
    }

    @Test func aReadWriteFileOpensInWALMode() throws {
        try withDatabase { connection, path in
            let mode = try connection.prepare("PRAGMA journal_mode").fetchOne()
            #expect(mode?[0] == .text("wal"))
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func openingAMissingFileReadOnlyFails() throws {
        #expect {
            try Connection(path: "/nonexistent/ferry.sqlite", mode: .readOnly)
        } throws: { error in
            (error as? SQLiteError)?.code == .cannotOpen
        }
    }

    @Test func everyStorageClassRoundTripsThroughBindAndColumn() throws {
        try withDatabase { connection, _ in
            try connection.execute("CREATE TABLE t (v)")
            let insert = try connection.prepare("INSERT INTO t (v) VALUES (?)")
            let values: [SQLiteValue] = [
                .null, .integer(Int64.min), .integer(42), .real(-0.5), .text(""), .text("Zoë 日本 'quoted'"),
                .blob([]), .blob([0, 1, 255]),
            ]
            for value in values {
                try insert.bind(value, at: 1)
                try insert.run()
            }
            let rows = try connection.prepare("SELECT v FROM t ORDER BY rowid").fetchAll()
            #expect(rows.map { $0[0] } == values)
        }
    }

    @Test func emptyBorrowedTextBindsAnEmptyStringNotNull() throws {
        try withDatabase { connection, _ in
            let select = try connection.prepare("SELECT ? IS NULL, length(?)")
            try select.bindText(UnsafeRawBufferPointer(start: nil, count: 0), at: 1)
            try select.bindText(UnsafeRawBufferPointer(start: nil, count: 0), at: 2)
            #expect(try select.fetchOne() == Row([.integer(0), .integer(0)]))
        }
    }

    @Test func textBoundFromAStringKeepsItsBytesAndAnEmptyBlobIsNotNull() throws {
        try withDatabase { connection, _ in
            let select = try connection.prepare("SELECT ?, typeof(?), ?, typeof(?), length(?)")
            try select.bindText("Łódź café", at: 1)
            try select.bindText("", at: 2)
            try select.bindText(String(repeating: "x", count: 100), at: 3)
            try select.bindBlob(UnsafeRawBufferPointer(start: nil, count: 0), at: 4)
            try select.bindBlob(UnsafeRawBufferPointer(start: nil, count: 0), at: 5)
            let row = try #require(try select.fetchOne())
            #expect(row[0] == .text("Łódź café"))
            #expect(row[1] == .text("text"))
            #expect(row[2] == .text(String(repeating: "x", count: 100)))
            #expect(row[3] == .text("blob"))
            #expect(row[4] == .integer(0))
        }
    }

    @Test func textBoundWithoutACopyIsReadFromTheBufferWhenTheStatementSteps() throws {
        try withDatabase { connection, _ in
            try connection.execute("CREATE TABLE t (v TEXT)")
            let insert = try connection.prepare("INSERT INTO t (v) VALUES (?)")
            var buffer = Array("café".utf8)
            try buffer.withUnsafeMutableBytes { bytes in
                try insert.bindText(borrowing: UnsafeRawBufferPointer(bytes), at: 1)
                // Borrowed, not copied: what the buffer holds when the statement steps is what SQLite stores.
                bytes[0] = UInt8(ascii: "t")
                try insert.run()
                try insert.bindText(borrowing: UnsafeRawBufferPointer(start: nil, count: 0), at: 1)
                try insert.run()
            }
            let rows = try connection.prepare("SELECT v, typeof(v) FROM t ORDER BY rowid").fetchAll()
            #expect(rows.map { $0[0] } == [.text("tafé"), .text("")])
            #expect(rows.map { $0[1] } == [.text("text"), .text("text")])
        }
    }

    @Test func aCachedStatementIsPreparedOnceAndComesBackReset() throws {
        try withDatabase { connection, _ in
            let first = try connection.cachedStatement("SELECT ?")
            try first.bind(7, at: 1)
            #expect(try first.step())
            let second = try connection.cachedStatement("SELECT ?")
            #expect(first === second)
            #expect(try second.fetchOne() == Row([.null]), "bindings are cleared")
        }
    }

    @Test func aTransactionCommitsOnReturnAndRollsBackOnThrow() throws {
        struct Abort: Error {}
        try withDatabase { connection, _ in
            try connection.execute("CREATE TABLE t (v INTEGER)")
            try connection.transaction { try connection.execute("INSERT INTO t VALUES (1)") }
            #expect(throws: Abort.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO t VALUES (2)")
                    throw Abort()
                }
            }
            #expect(!connection.isInTransaction)
            #expect(try connection.prepare("SELECT group_concat(v) FROM t").fetchOne() == Row([.text("1")]))
        }
    }

    @Test func aUniqueViolationNamesItsCodeAndSQLButNoValues() throws {
        try withDatabase { connection, _ in
            try connection.execute("CREATE TABLE product (sku TEXT UNIQUE)")
            let insert = try connection.prepare("INSERT INTO product (sku) VALUES (?)")
            try insert.bind("SKU-SECRET-VALUE", at: 1)
            try insert.run()
            do {
                try insert.run()
                Issue.record("the second insert should fail")
            } catch let error as SQLiteError {
                #expect(error.code == .constraint)
                #expect(error.extendedCode == .uniqueConstraint)
                #expect(error.sql == "INSERT INTO product (sku) VALUES (?)")
                #expect(!error.description.contains("SKU-SECRET-VALUE"))
                #expect(error.description.contains("UNIQUE constraint failed: product.sku"))
            }
        }
    }

    @Test func aSyntaxErrorCarriesTheSQL() throws {
        try withDatabase { connection, _ in
            _ = #expect {
                try connection.prepare("SELEC 1")
            } throws: { error in
                (error as? SQLiteError)?.sql == "SELEC 1" && (error as? SQLiteError)?.code == .error
            }
        }
    }

    @Test func aSecondWriterGetsBusyAfterItsTimeout() throws {
        try withDatabase { connection, path in
            try connection.execute("CREATE TABLE t (v)")
            let other = try Connection(path: path, busyTimeout: .milliseconds(50))
            try connection.execute("BEGIN IMMEDIATE")
            #expect {
                try other.execute("BEGIN IMMEDIATE")
            } throws: { error in
                (error as? SQLiteError)?.code == .busy
            }
            try connection.execute("COMMIT")
        }
    }

    @Test func aReaderKeepsItsSnapshotWhileAWriterCommits() throws {
        try withDatabase { connection, path in
            try connection.execute("CREATE TABLE t (v); INSERT INTO t VALUES (1)")
            let reader = try Connection(path: path, mode: .readOnly)
            let count = try reader.prepare("SELECT count(*) FROM t")
            try reader.execute("BEGIN")
            #expect(try count.fetchOne() == Row([.integer(1)]))
            try connection.execute("INSERT INTO t VALUES (2)")
            #expect(try count.fetchOne() == Row([.integer(1)]), "the read transaction sees its snapshot")
            try reader.execute("COMMIT")
            #expect(try count.fetchOne() == Row([.integer(2)]))
        }
    }

    @Test func anInMemoryDatabaseNeedsNoFile() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t (v); INSERT INTO t VALUES ('x')")
        #expect(connection.changes == 1)
        #expect(connection.lastInsertRowID == 1)
        #expect(try connection.prepare("SELECT v FROM t").fetchOne() == Row([.text("x")]))
    }
}
