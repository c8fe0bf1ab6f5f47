package import FerrySQLite
import Foundation

extension StoreError.Code {
    /// The store is in the middle of a migration that was stopped before it finished (`NSMigrationError`): it is
    /// still at its old model, and refuses other work until the migration is run again to its end.
    public static let migrationInProgress = StoreError.Code(rawValue: "migrationInProgress", coreDataCode: 134110)
}

/// The marker of a migration under way, kept in the store's table `ferry_migration` (one row) from the moment the
/// migration starts filling tables beside the old ones until the transaction that swaps them in, which removes it.
///
/// While the marker is there the store is still wholly at its old model (the new tables are `ferry_migrating_…`
/// beside the old ones), but opening it for other work is refused, so nothing writes to a table being copied. The
/// next migration to the same model picks up the copies where they stopped; a migration to another model drops
/// them and starts again.
package struct StoreMigrationState: Sendable, Hashable {
    /// The version hash of the model the migration goes to.
    package var targetHash: String
    /// When it started (ISO 8601, UTC).
    package var startedAt: String
    /// What started it.
    package var startedBy: String

    /// The prefix of the tables a migration fills beside the old ones.
    package static let copyPrefix = "ferry_migrating_"

    static let createStatement = """
        CREATE TABLE IF NOT EXISTS ferry_migration (
            id INTEGER PRIMARY KEY CHECK (id = 1), target_hash TEXT NOT NULL, started_at TEXT NOT NULL,
            started_by TEXT NOT NULL)
        """

    /// The marker, or `nil` when no migration is under way.
    package static func read(_ connection: Connection) throws -> StoreMigrationState? {
        let exists = try connection.prepare(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ferry_migration'"
        ).fetchOne()
        guard exists?[0] == .integer(1) else { return nil }
        guard let row = try connection.prepare("SELECT target_hash, started_at, started_by FROM ferry_migration")
            .fetchOne()
        else { return nil }
        return StoreMigrationState(
            targetHash: row[0].text ?? "", startedAt: row[1].text ?? "", startedBy: row[2].text ?? "")
    }

    /// Sets the marker (in the caller's transaction).
    func write(_ connection: Connection) throws {
        try connection.execute(Self.createStatement)
        let statement = try connection.prepare(
            "INSERT OR REPLACE INTO ferry_migration (id, target_hash, started_at, started_by) VALUES (1, ?, ?, ?)")
        try statement.bind([.text(targetHash), .text(startedAt), .text(startedBy)])
        try statement.run()
    }

    /// Removes the marker (in the caller's transaction).
    static func clear(_ connection: Connection) throws {
        try connection.execute(createStatement)
        try connection.execute("DELETE FROM ferry_migration")
    }

    /// Throws when a migration is under way on the store `connection` opens.
    ///
    /// - Throws: ``StoreError`` ``StoreError/Code/migrationInProgress``, naming the model the migration goes to and
    ///   the command that finishes it.
    static func refuseIfMidMigration(_ connection: Connection) throws {
        guard let state = try read(connection) else { return }
        throw StoreError(
            .migrationInProgress,
            "the store is in the middle of a migration to model \(state.targetHash.prefix(12)) (started \(state.startedAt) "
                + "by \(state.startedBy)) that was stopped before it finished; it is still at its old model and is "
                + "refused until the migration ends: run `ferry migrate --store \(connection.path) --model FILE` with "
                + "that model to finish it",
            path: connection.path)
    }
}
