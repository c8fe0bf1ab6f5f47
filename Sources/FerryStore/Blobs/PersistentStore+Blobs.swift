import FerrySQLite
import Logging

/// External binary storage (as in Core Data): binary attributes that allow it (``AttributeDescription/
/// allowsExternalStorage``, `allowsExternalStorage: true` in a model file) keep values larger than
/// ``PersistentStoreDescription/externalStorageThreshold`` in files beside the store, and read back the same
/// whether a value lives in its row or in a file.
///
/// - **Layout**: `<store path>-blobs/<first 2 hex digits>/<sha256 hex>`, one file per distinct value holding exactly
///   its bytes (``BlobFolder``). The column holds the TEXT `ferry-blob:sha256:<hash>` (``BlobReference``); inline
///   values stay BLOBs. An in-memory store keeps every value inline.
/// - **Writing**: inside the write transaction, before the row that refers to it, the file is written to a
///   temporary name, synced, renamed into place and its folder synced — only when it is not there already, so two
///   rows with the same bytes share one file (``BlobWriter``).
/// - **Counting**: `ferry_blobs` counts each file's references, kept by triggers in the same transaction, whoever
///   writes: saves, batch inserts, updates and deletes, cascades (``StoreSchema/blobStatements``).
/// - **Removing**: after a commit that leaves a file with no reference, a short transaction removes the file and
///   its `ferry_blobs` row. A failed save or batch request removes the files it created before rolling back.
/// - **Sweeping**: at open, and on demand with ``sweepBlobs()``, a sweep holding the write lock removes files no
///   row refers to and temporary files — what a crash leaves.
///
/// **Our rules:** content-addressed files (SHA-256) rather than Core Data's UUID-named ones, so equal values are
/// stored once; the threshold is strict (a value of exactly the threshold stays inline); a column's stored form is
/// chosen when it is written, so a batch update that copies one attribute into another copies the stored form, and
/// copying an externally stored attribute into one that is not is refused.
extension PersistentStore {
    /// Removes what a crash can leave in the blob folder — files no row refers to, temporary files — and the
    /// bookkeeping rows of files already released, holding the store's write lock so that no writer is between
    /// writing a file and committing the row that refers to it. The store sweeps when it opens; call this after a
    /// process writing to the same file died, or to check the folder (see ``BlobSweepReport/missingFiles``).
    ///
    /// A store without attributes that allow external storage, or in memory, has nothing to sweep.
    ///
    /// - Returns: what was removed, and the files rows refer to that are missing.
    /// - Throws: ``StoreError`` `.blobFileFailed` when the folder cannot be listed or a file removed, `.sqlite`.
    public func sweepBlobs() async throws -> BlobSweepReport {
        guard let folder = blobFolder else { return BlobSweepReport() }
        return try await writer.run { connection in
            try Self.sweepBlobs(in: folder, on: connection)
        }
    }

    /// The writer for a write transaction's blob files; `nil` when no value can go to a file.
    func blobWriter(on connection: Connection) -> BlobWriter? {
        guard let folder = blobFolder else { return nil }
        return BlobWriter(
            folder: folder, threshold: description.externalStorageThreshold, connection: connection,
            faults: blobFaults)
    }

    /// After a commit: removes the files whose last reference the transaction dropped. Failures are logged, not
    /// thrown — the commit stands, and the next release or sweep removes them.
    func releaseBlobs(on connection: Connection) {
        guard let folder = blobFolder else { return }
        do {
            try Self.releaseBlobs(in: folder, on: connection)
        } catch {
            logger.warning("removing released blob files failed; the next sweep removes them: \(error)")
        }
    }

    // MARK: On the writer

    /// Adds the reference-counting table and triggers (a store made before they existed gets them now), then sweeps.
    /// A store whose model keeps no values in files is swept too when it has `ferry_blobs`: a migration that moved
    /// values back into rows and was stopped before its own sweep left their files.
    ///
    /// - Throws: ``StoreError`` `.sqlite` when the table or triggers cannot be made.
    static func prepareBlobs(on connection: Connection, schema: StoreSchema, logger: Logger) throws {
        guard schema.usesExternalStorage || (try? hasBlobTable(connection)) == true else { return }
        do {
            try connection.transaction(.immediate) {
                for statement in schema.blobStatements { try connection.execute(statement) }
            }
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "cannot prepare the blob tables", path: connection.path, underlying: error)
        }
        guard let folder = BlobFolder(databasePath: connection.path) else { return }
        do {
            let report = try sweepBlobs(in: folder, on: connection)
            if report.removedAnything {
                let removed = report.removedFiles.count
                let temporary = report.removedTemporaryFiles.count
                logger.info("blob sweep removed \(removed) unreferenced and \(temporary) temporary files")
            }
            if !report.missingFiles.isEmpty {
                let missing = report.missingFiles.count
                logger.warning("\(missing) blob files that rows refer to are missing from \(folder.path)")
            }
        } catch {
            logger.warning("the blob sweep at open failed: \(error)")
        }
    }

    /// Removes released files (`refs` ≤ 0) and their rows, in a transaction of its own.
    ///
    /// - Throws: ``StoreError`` `.blobFileFailed`; ``SQLiteError``.
    static func releaseBlobs(in folder: BlobFolder, on connection: Connection) throws {
        // Inside an enclosing transaction a released file may still come back with its rows (a rollback): files go
        // once it commits (see ``withEnclosingTransaction(_:)``).
        guard !connection.isInTransaction else { return }
        let probe = try connection.cachedStatement("SELECT 1 FROM ferry_blobs WHERE refs <= 0 LIMIT 1")
        let anyReleased = try probe.step()
        probe.reset()
        guard anyReleased else { return }
        try connection.transaction(.immediate) {
            for row in try connection.cachedStatement("SELECT hash FROM ferry_blobs WHERE refs <= 0").fetchAll() {
                // Only a well-formed hash becomes a path; the triggers count nothing else, but the table is plain SQL.
                guard let hash = row[0].text, let reference = BlobReference(hash: hash) else { continue }
                try removeFile(of: reference, in: folder)
            }
            try connection.execute("DELETE FROM ferry_blobs WHERE refs <= 0")
        }
    }

    /// The sweep: see ``sweepBlobs()``.
    ///
    /// - Throws: ``StoreError`` `.blobFileFailed` or `.sqlite`.
    static func sweepBlobs(in folder: BlobFolder, on connection: Connection) throws -> BlobSweepReport {
        // Inside an enclosing transaction, rows it removed may come back: nothing is swept until it ends.
        guard !connection.isInTransaction else { return BlobSweepReport() }
        do {
            return try connection.transaction(.immediate) {
                var report = BlobSweepReport()
                let entries: [BlobFolder.Entry]
                do throws(BlobFileError) {
                    entries = try folder.entries()
                } catch {
                    throw StoreError.blobFile("sweeping the blob folder", error)
                }
                let lookup = try connection.cachedStatement("SELECT refs FROM ferry_blobs WHERE hash = ?")
                var present: Set<String> = []
                for entry in entries {
                    guard let reference = entry.reference else { continue }  // not a name the store writes
                    let file = folder.path + "/" + entry.relativePath
                    if entry.isTemporary {
                        try remove(file, in: folder)
                        report.removedTemporaryFiles.append(entry.relativePath)
                        continue
                    }
                    try lookup.bind(reference.hash, at: 1)
                    let refs = try lookup.step() ? lookup.int64(at: 0) : 0
                    lookup.reset()
                    if refs > 0 {
                        present.insert(reference.hash)
                    } else {
                        try remove(file, in: folder)
                        report.removedFiles.append(entry.relativePath)
                    }
                }
                try connection.execute("DELETE FROM ferry_blobs WHERE refs <= 0")
                for row in try connection.prepare("SELECT hash FROM ferry_blobs ORDER BY hash").fetchAll() {
                    guard let hash = row[0].text, !present.contains(hash) else { continue }
                    report.missingFiles.append(BlobReference(hash: hash)?.relativePath ?? hash)
                }
                return report
            }
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "sweeping the blob folder failed", path: connection.path, underlying: error)
        }
    }

    /// Whether the store has `ferry_blobs`.
    static func hasBlobTable(_ connection: Connection) throws -> Bool {
        try connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ferry_blobs'").fetchOne()
            != nil
    }

    private static func removeFile(of reference: BlobReference, in folder: BlobFolder) throws {
        try remove(folder.filePath(of: reference), in: folder)
    }

    private static func remove(_ file: String, in folder: BlobFolder) throws {
        do {
            try folder.removeFile(file)
        } catch {
            throw StoreError.blobFile("removing a blob file", error)
        }
    }
}
