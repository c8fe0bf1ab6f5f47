import FerrySQLite
import Foundation

/// The SQLite tables that hold persistent history, readable in any SQLite tool:
///
/// ```sql
/// ferry_history_transactions (token INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL, author, context_name)
/// ferry_history_changes (token, ent, pk, kind 'insert'|'update'|'delete', updated)  -- key (token, ent, pk)
/// ferry_history_tombstones (token, ent, pk, attribute, value)  -- key (token, ent, pk, attribute)
/// ```
///
/// - `token` is `AUTOINCREMENT`, so a number is never given twice, even after `deleteHistory(before:)`
///   removed every transaction; `timestamp` is Unix seconds, as dates are everywhere in the store.
/// - A change names its object as the entity tables do: `ent` (the entity's number, see `ferry_entities`) and `pk`
///   (the row's `_pk`). Its key makes one change per object per transaction, as in Core Data.
/// - `updated` lists an update's property names, comma-separated (model names cannot hold a comma).
/// - A tombstone row keeps one uniqueness-constrained attribute of a deleted row, in its stored encoding.
///
/// The tables are created when a store opens with ``PersistentStoreDescription/recordsHistory`` on (existing stores
/// included); they are Ferry's own tables, so the model's version hash does not change.
enum HistoryTables {
    static let transactions = "ferry_history_transactions"
    static let changes = "ferry_history_changes"
    static let tombstones = "ferry_history_tombstones"
    /// The `ferry_metadata` key that remembers the last token `deleteHistory(before:)` deleted,
    /// so a fetch after an older token can fail instead of silently missing changes.
    static let purgedThroughKey = "history_purged_through"

    static let createStatements = [
        """
        CREATE TABLE IF NOT EXISTS \(SQL.identifier(transactions)) (
            token INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL, author TEXT, context_name TEXT)
        """,
        """
        CREATE TABLE IF NOT EXISTS \(SQL.identifier(changes)) (
            token INTEGER NOT NULL, ent INTEGER NOT NULL, pk INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('insert', 'update', 'delete')), updated TEXT,
            PRIMARY KEY (token, ent, pk)) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS \(SQL.identifier(tombstones)) (
            token INTEGER NOT NULL, ent INTEGER NOT NULL, pk INTEGER NOT NULL, attribute TEXT NOT NULL, value,
            PRIMARY KEY (token, ent, pk, attribute)) WITHOUT ROWID
        """,
    ]

    /// Creates the history tables when they are missing.
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    static func create(on connection: Connection, path: String) throws {
        do {
            try connection.transaction(.immediate) {
                for statement in createStatements { try connection.execute(statement) }
            }
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "cannot create the history tables", path: path, underlying: error)
        }
    }

    /// Whether the store has history tables (it was opened with history on at least once).
    static func exist(on connection: Connection) throws -> Bool {
        let statement = try connection.cachedStatement(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?")
        try statement.bind(transactions, at: 1)
        return try statement.fetchOne()?[0].integer == 1
    }
}

extension PersistentStore {
    /// Whether the store file at `path` has recorded persistent history (it was opened with
    /// ``PersistentStoreDescription/recordsHistory`` on at least once); `false` for a missing or unreadable file.
    ///
    /// Tools that open stores for other people's jobs keep recording once a store has started, so an ad-hoc
    /// write never leaves a hole in the history an incremental export relies on.
    public static func hasRecordedHistory(at path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path),
            let connection = try? Connection(path: path, mode: .readOnly)
        else { return false }
        return (try? HistoryTables.exist(on: connection)) ?? false
    }
}
