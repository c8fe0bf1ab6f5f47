import FerrySQLite
import Foundation
import Logging

/// Values moved between rows and blob files when an attribute's external storage changes, and the blob reference
/// counts made right for the new layout.
///
/// Crash safety follows the store's own rule for blob files: a file is written (temporary name, sync, rename, folder
/// synced) before the transaction that makes a row refer to it commits, and a file is removed only after the commit
/// that drops its last reference. A run killed before its commit leaves the rows as they were, with at most some
/// files no row refers to, which the next migration's (or the store's) sweep removes.
extension MigrationExecutor {
    /// Whether the blob bookkeeping may change: either model keeps values in files.
    var touchesBlobs: Bool { plan.source.usesExternalStorage || plan.destination.usesExternalStorage }

    /// Moves the values of the columns whose attribute's external storage changed, row by row, inside the migration's
    /// transaction, after the columns have their new names and before the new layout's triggers exist.
    ///
    /// - Throws: ``StoreError`` `.blobFileMissing` or `.blobFileFailed` naming the row whose value cannot be moved
    ///   (the migration then rolls back); `SQLiteError`.
    func moveBlobs() throws {
        let moves = plan.tables.flatMap { table in
            table.columns.compactMap { column in column.blobMove.map { (table.table, column.name, $0) } }
        }
        guard !moves.isEmpty else { return }
        guard let folder = BlobFolder(databasePath: connection.path) else { return }
        if let create = plan.destination.blobStatements.first {
            try execute(create)
        } else {
            try execute(
                "CREATE TABLE IF NOT EXISTS ferry_blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, "
                    + "refs INTEGER NOT NULL) WITHOUT ROWID")
        }
        let writer = BlobWriter(folder: folder, threshold: plan.externalStorageThreshold, connection: connection)
        for (table, column, move) in moves {
            let value = SQL.identifier(column)
            let condition =
                switch move {
                case .toFiles: "typeof(\(value)) = 'blob' AND length(\(value)) > \(plan.externalStorageThreshold)"
                case .toRows: BlobReference.sqlCondition(value)
                }
            let next = try connection.prepare(
                "SELECT \"_pk\" FROM \(SQL.identifier(table)) WHERE \"_pk\" > ? AND \(condition) ORDER BY \"_pk\" "
                    + "LIMIT 256")
            let read = try connection.prepare("SELECT \(value) FROM \(SQL.identifier(table)) WHERE \"_pk\" = ?")
            let update = try connection.prepare(
                "UPDATE \(SQL.identifier(table)) SET \(value) = ? WHERE \"_pk\" = ?")
            var last: Int64 = 0
            var moved = 0
            while true {
                try next.bind([.integer(last)])
                let keys = try next.fetchAll().compactMap { $0[0].integer }
                next.reset()
                guard let highest = keys.last else { break }
                for key in keys {
                    try read.bind([.integer(key)])
                    guard try read.step() else {
                        read.reset()
                        continue
                    }
                    switch move {
                    case .toFiles:
                        let reference = try read.withBlobBytes(at: 0) { try writer.store($0) }
                        read.reset()
                        try update.bind([.text(reference.storedText), .integer(key)])
                    case .toRows:
                        let text = read.text(at: 0) ?? ""
                        read.reset()
                        let bytes = try bytes(of: text, in: folder, table: table, column: column, row: key)
                        try update.bind([.blob(Array(bytes)), .integer(key)])
                    }
                    try update.run()
                    update.reset()
                    moved += 1
                    if move == .toFiles { try afterBlobFile?("\(table).\(column)", moved) }
                }
                last = highest
            }
            logger.debug(
                "moved values between rows and blob files",
                metadata: ["column": "\(table).\(column)", "values": "\(moved)", "to": "\(move)"])
        }
    }

    /// The bytes of the blob file `text` refers to.
    private func bytes(of text: String, in folder: BlobFolder, table: String, column: String, row: Int64) throws
        -> Data
    {
        guard let reference = BlobReference(storedText: text) else {
            throw StoreError(
                .invalidBlobReference, "row \(row) of '\(table)' holds no blob reference in '\(column)'",
                path: connection.path)
        }
        do {
            return try folder.read(reference)
        } catch let error as StoreError {
            throw StoreError(
                error.code,
                "cannot move the value of '\(table).\(column)' of row \(row) back into its row: \(error.message)",
                path: error.path, underlying: error.underlying)
        }
    }

    /// Sets every `ferry_blobs` count to the references the new layout's rows hold, plus those kept by rows in
    /// `ferry_migration_rejects` (a rejected row's file stays while its record does). One set-based pass over the
    /// columns that may hold references; it runs when either model keeps values in files, so attributes, entities and
    /// rows the migration removed, and values moved, leave the counts right.
    func recountBlobReferences() throws {
        guard touchesBlobs, try tableExists("ferry_blobs") else { return }
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
        guard touchesBlobs, let folder = BlobFolder(databasePath: connection.path) else { return }
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
