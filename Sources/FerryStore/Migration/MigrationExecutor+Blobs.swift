import FerrySQLite
import Foundation
import Logging

/// Values moved between rows and blob files when an attribute's external storage changes, and the blob reference
/// counts made right for the new layout.
///
/// A table with such a column is copied beside the old one (``MigrationExecutor``'s step 2), and its values move as
/// the copy is filled: each chunk of rows, bounded by ``chunkRows`` and by ``chunkBytes`` of values moved, is one
/// transaction that copies the rows, streams their values into files or back into the copy's rows
/// (``MigrationBlobMover``), makes the chunk's new files durable under their names, and commits; the copy's highest
/// `_pk` is the checkpoint. Crash safety follows the store's own rule for blob files: a file is durable before the
/// transaction that makes a row refer to it commits, and a file is removed only after the commit that drops its last
/// reference (the sweep after the swap). The old table is only read until the swap, so a run killed at any moment
/// leaves the store at its old model, with at most some files no row refers to: the next run reuses those it needs,
/// and its sweep removes the rest.
extension MigrationExecutor {
    /// The movers of the columns of `table` whose attribute's external storage changed (none for a store in memory,
    /// which has no blob folder). `ferry_blobs` is made first when values go to files, so each can be registered
    /// with its size.
    func blobMovers(for table: TableMigration) throws -> [MigrationBlobMover] {
        let moving = table.columns.filter { $0.blobMove != nil }
        guard !moving.isEmpty, let folder = BlobFolder(databasePath: connection.path) else { return [] }
        if moving.contains(where: { $0.blobMove == .toFiles }) {
            try execute(
                plan.destination.blobStatements.first
                    ?? "CREATE TABLE IF NOT EXISTS ferry_blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, "
                    + "refs INTEGER NOT NULL) WITHOUT ROWID")
        }
        return moving.compactMap { column in
            column.blobMove.map { move in
                MigrationBlobMover(
                    connection: connection, folder: folder, threshold: plan.externalStorageThreshold, table: table,
                    column: column, move: move)
            }
        }
    }

    /// Fills the copy of `table` from where it stopped, a chunk per transaction, the chunk's values moved by
    /// `movers`; `insert` copies the old rows with `_pk` in `(?, ?]`, the moving values left NULL.
    ///
    /// - Returns: the rows in the copy.
    /// - Throws: as ``MigrationBlobMover/moveValues(after:through:each:)``; the chunk in progress rolls back, the
    ///   chunks before it stay.
    func copyMovingBlobs(_ table: TableMigration, insert: String, movers: [MigrationBlobMover]) throws -> Int {
        guard let sourceTable = table.sourceTable else { return 0 }
        let copy = Self.copyName(of: table.table)
        let sizes = try tableExists("ferry_blobs")
        let bytes = movers.map { $0.movedBytes(sizes: sizes) }.joined(separator: " + ")
        // The chunk: at most chunkRows rows, and no more rows once the values to move reach chunkBytes.
        let range = try connection.prepare(
            "SELECT \"_pk\", \(bytes) FROM \(SQL.identifier(sourceTable)) WHERE \"_pk\" > ? ORDER BY \"_pk\" "
                + "LIMIT \(max(chunkRows, 1))")
        let rows = try connection.prepare(insert)
        let highest = try connection.prepare("SELECT coalesce(max(\"_pk\"), 0) FROM \(SQL.identifier(copy))")
        var copied = try count(copy)
        var moved: [String: Int] = [:]
        while true {
            let added = try connection.transaction(.immediate) { () -> Int in
                do {
                    let last = try highest.fetchOne()?[0].integer ?? 0
                    guard let upper = try chunkEnd(range, after: last) else { return 0 }
                    try rows.bind([.integer(last), .integer(upper)])
                    try rows.run()
                    let added = connection.changes
                    for mover in movers {
                        let before = moved[mover.name] ?? 0
                        let count = try mover.moveValues(after: last, through: upper) { values in
                            try afterBlobFile?(mover.name, before + values)
                        }
                        moved[mover.name] = before + count
                    }
                    for mover in movers { try mover.publish() }
                    return added
                } catch {
                    for mover in movers { mover.discard() }
                    throw error
                }
            }
            guard added > 0 else { break }
            copied += added
            try afterChunk?(table.table, copied)
        }
        for mover in movers {
            logger.debug(
                "moved values between rows and blob files",
                metadata: ["column": "\(mover.name)", "values": "\(moved[mover.name] ?? 0)", "to": "\(mover.move)"])
        }
        return copied
    }

    /// The highest `_pk` of the next chunk after `last`, or `nil` when no row is left: `range` lists the next rows
    /// with the bytes each moves.
    private func chunkEnd(_ range: Statement, after last: Int64) throws -> Int64? {
        try range.bind([.integer(last)])
        defer { range.reset() }
        var upper: Int64?
        var bytes = 0
        while try range.step() {
            upper = range.int64(at: 0)
            bytes += Int(range.int64(at: 1))
            if bytes >= chunkBytes { break }
        }
        return upper
    }

    /// Sets every `ferry_blobs` count to the references the new layout's rows hold, plus those kept by rows in
    /// `ferry_migration_rejects` (a rejected row's file stays while its record does). One set-based pass over the
    /// columns that may hold references; it runs whenever the store has `ferry_blobs` (even when neither model keeps
    /// values in files, a stopped migration to another model may have written some), so attributes, entities and rows
    /// the migration removed, and values moved, leave the counts right.
    func recountBlobReferences() throws {
        guard try tableExists("ferry_blobs") else { return }
        let condition = BlobReference.sqlCondition("r")
        var sources = plan.destination.externalStorageColumns.map { table, column in
            "SELECT \(SQL.identifier(column)) AS r FROM \(SQL.identifier(table))"
        }
        if try tableExists("ferry_migration_rejects") {
            sources.append(
                "SELECT j.value AS r FROM ferry_migration_rejects, json_each(ferry_migration_rejects.row) AS j")
        }
        guard !sources.isEmpty else {
            try execute("UPDATE ferry_blobs SET refs = 0 WHERE refs <> 0")
            return
        }
        try execute(
            "CREATE TEMP TABLE IF NOT EXISTS ferry_migration_blob_refs (hash TEXT PRIMARY KEY, refs INTEGER NOT NULL) "
                + "WITHOUT ROWID")
        try execute("DELETE FROM temp.ferry_migration_blob_refs")
        try execute(
            "INSERT INTO temp.ferry_migration_blob_refs (hash, refs) SELECT \(BlobReference.sqlHash("r")), count(*) "
                + "FROM (\(sources.joined(separator: " UNION ALL "))) WHERE \(condition) GROUP BY 1")
        try execute(
            "UPDATE ferry_blobs SET refs = coalesce((SELECT c.refs FROM temp.ferry_migration_blob_refs AS c "
                + "WHERE c.hash = ferry_blobs.hash), 0)")
        // A reference without a bookkeeping row (written by plain SQL) gets one, as the triggers would give it.
        try execute(
            "INSERT INTO ferry_blobs (hash, size, refs) SELECT hash, 0, refs FROM temp.ferry_migration_blob_refs "
                + "WHERE true ON CONFLICT (hash) DO NOTHING")
        try execute("DELETE FROM temp.ferry_migration_blob_refs")
    }

    /// After the commit: removes the files no row refers to any more, and what a killed run left. A failure is
    /// logged, not thrown: the migration stands, and the store's sweep at open removes them later.
    func sweepBlobFolder() {
        guard let folder = BlobFolder(databasePath: connection.path) else { return }
        do {
            guard try tableExists("ferry_blobs") else { return }
            let report = try PersistentStore.sweepBlobs(in: folder, on: connection)
            if report.removedAnything {
                logger.info(
                    "blob sweep after the migration",
                    metadata: [
                        "removed": "\(report.removedFiles.count)", "temporary": "\(report.removedTemporaryFiles.count)",
                    ])
            }
        } catch {
            logger.warning("the blob sweep after the migration failed; the next one removes the files: \(error)")
        }
    }

    private func tableExists(_ name: String) throws -> Bool {
        let statement = try connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        try statement.bind([.text(name)])
        return try statement.fetchOne() != nil
    }
}
