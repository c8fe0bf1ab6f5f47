import FerrySQLite
import FerryStore
import Foundation

/// Where incremental exports remember how far they got: the table
/// `ferry_exports (name PRIMARY KEY, token, exported_at, rows)`, one row per export name, holding the history token
/// of the snapshot the last complete export of that name read.
struct ExportTokens {
    static let table = "ferry_exports"

    let store: PersistentStore

    /// The token the previous export named `name` reached, or `nil` when there was none.
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    static func token(of name: String, in snapshot: ReadSnapshot) throws -> Int64? {
        guard try snapshot.hasTable(table) else { return nil }
        return try snapshot.rows("SELECT token FROM \(table) WHERE name = ?", [.text(name)]).first?[0].integer
    }

    /// Remembers that the export named `name` is complete up to `token`.
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    func record(name: String, token: Int64, rows: Int) async throws {
        let now = Date().timeIntervalSince1970.rounded(.down)
        let exportedAt = ISO8601Text.string(seconds: now)
        do {
            try await store.writer.run { connection in
                try connection.transaction {
                    try connection.execute(
                        "CREATE TABLE IF NOT EXISTS \(Self.table) (name TEXT PRIMARY KEY, token INTEGER NOT NULL, "
                            + "exported_at TEXT NOT NULL, rows INTEGER NOT NULL)")
                    let upsert = try connection.prepare(
                        "INSERT OR REPLACE INTO \(Self.table) (name, token, exported_at, rows) VALUES (?, ?, ?, ?)")
                    try upsert.bind([.text(name), .integer(token), .text(exportedAt), .integer(Int64(rows))])
                    try upsert.run()
                }
            }
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "recording the export \(name) failed", path: store.writer.path, underlying: error)
        }
    }
}
