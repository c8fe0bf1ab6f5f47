import FerryTestSupport
import Foundation
import Testing

@testable import FerrySQLite

/// Read-only connections: every change refused, the log removed by the last close where the process may write, and
/// the immutable opening used where it may not.
struct ReadOnlyConnectionTests {
    /// A closed WAL-mode database at `folder/name` with a table of two rows.
    func makeDatabase(in folder: URL, name: String = "test.sqlite") throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Connection(path: path).execute("CREATE TABLE item (name TEXT); INSERT INTO item VALUES ('a'), ('b')")
        return path
    }

    func names(_ connection: Connection) throws -> [SQLiteValue] {
        try connection.prepare("SELECT name FROM item ORDER BY name").fetchAll().map { $0[0] }
    }

    @Test func aReadOnlyConnectionRefusesEveryChangeAndItsCloseRemovesTheLog() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try makeDatabase(in: folder)
            do {
                let connection = try Connection(path: path, mode: .readOnly)
                #expect(try names(connection) == [.text("a"), .text("b")])
                for sql in [
                    "INSERT INTO item VALUES ('c')", "UPDATE item SET name = 'z'", "CREATE TABLE other (x)", "VACUUM",
                ] {
                    #expect(errorCode { try connection.execute(sql) } == .readOnly, "\(sql)")
                }
                #expect(FileManager.default.fileExists(atPath: path + "-wal"), "a WAL reader works through the log")
            }
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
            #expect(try names(Connection(path: path)) == [.text("a"), .text("b")])
        }
    }

    func errorCode(_ body: () throws -> Void) -> SQLiteError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? SQLiteError)?.code
        }
    }

    @Test func aReadOnlyConnectionCopiesItsDatabaseAndStaysReadOnly() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try makeDatabase(in: folder)
            let connection = try Connection(path: path, mode: .readOnly)
            let copy = folder.appendingPathComponent("copy.sqlite").path
            try connection.copyDatabase(to: copy)
            #expect(try names(Connection(path: copy, mode: .readOnly)) == [.text("a"), .text("b")])
            #expect(errorCode { try connection.execute("INSERT INTO item VALUES ('c')") } == .readOnly)
        }
    }

    @Test func theImmutableOpeningEscapesItsPathForSQLite() throws {
        typealias Opening = Connection.ReadOnlyOpening
        #expect(Opening.immutableURI(for: "x.sqlite") == "file:x.sqlite?immutable=1")
        #expect(Opening.immutableURI(for: "//srv/x.sqlite") == "file:////srv/x.sqlite?immutable=1")
        try TestSupport.withTemporaryFolder { folder in
            let path = try makeDatabase(in: folder, name: "a?b#c%d 1.sqlite")
            #expect(Opening.immutableURI(for: path) == "file://" + folder.path + "/a%3Fb%23c%25d 1.sqlite?immutable=1")
            let connection = try Connection(path: Opening.immutableURI(for: path), mode: .readOnly)
            #expect(try names(connection) == [.text("a"), .text("b")])
            #expect(errorCode { try connection.execute("INSERT INTO item VALUES ('c')") } == .readOnly)
        }
    }

    @Test func aFileThisProcessMayWriteOpensWritableUnderneath() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try makeDatabase(in: folder)
            #expect(Connection.ReadOnlyOpening(path: path) == .writableUnderneath)
            #expect(Connection.ReadOnlyOpening(path: ":memory:") == .readOnly)
            #expect(Connection.ReadOnlyOpening(path: "file:" + path + "?mode=ro") == .readOnly)
        }
        #expect(DatabaseFileAccess.folder(of: "x.sqlite") == ".")
        #expect(DatabaseFileAccess.folder(of: "/x.sqlite") == "/")
        #expect(DatabaseFileAccess.folder(of: "/a/b/x.sqlite") == "/a/b")
    }
}
