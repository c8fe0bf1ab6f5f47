import FerrySQLite
import Foundation

/// Moves one column's values between rows and blob files while its table is copied beside the old one, a chunk of
/// rows at a time, inside the chunk's transaction (see ``MigrationExecutor``).
///
/// The chunk's rows reach the copy with this column NULL wherever a value moves; then each value is streamed, never
/// held whole: into files, from the old row (SQLite's incremental blob reads) through a hashing temporary file, the
/// copy's row getting the reference; back into rows, from the file into room made in the copy's row
/// (`zeroblob(n)`, then incremental writes). Files written for a chunk are made durable together under their names
/// (``BlobFileBatch``) by ``publish()``, which the chunk calls before it commits. The old table is only read, so a
/// run stopped anywhere leaves the store at its old model; files of a chunk that never committed are named by their
/// bytes, so the next run reuses them, and the sweep after the migration removes what no row refers to.
///
/// Not `Sendable`: it holds statements of the migration's connection.
final class MigrationBlobMover {
    let move: TableMigration.BlobMove
    /// The column as the history and errors name it: `Table.column` in the new model.
    let name: String
    private let connection: Connection
    private let folder: BlobFolder
    private let threshold: Int
    private let sourceTable: String
    private let sourceColumn: String
    private let copyTable: String
    private let copyColumn: String
    private var batch: BlobFileBatch
    /// One piece of a value in flight; the only memory a value takes, however large.
    private var buffer: [UInt8]
    private var handle: IncrementalBlob?
    private var select: Statement?
    private var update: Statement?

    /// Bytes per read or write of a value.
    static let pieceSize = 256 * 1024

    init(
        connection: Connection, folder: BlobFolder, threshold: Int, table: TableMigration,
        column: TableMigration.Column, move: TableMigration.BlobMove
    ) {
        self.connection = connection
        self.folder = folder
        self.threshold = threshold
        self.move = move
        self.name = "\(table.table).\(column.name)"
        self.sourceTable = table.sourceTable ?? table.table
        self.sourceColumn = column.source ?? column.name
        self.copyTable = MigrationExecutor.copyName(of: table.table)
        self.copyColumn = column.name
        self.batch = BlobFileBatch(folder: folder)
        self.buffer = []
    }

    /// The SQL condition, over the old table's column, of the values that move.
    var condition: String {
        let value = SQL.identifier(sourceColumn)
        return switch move {
        case .toFiles: "typeof(\(value)) = 'blob' AND length(\(value)) > \(threshold)"
        case .toRows: BlobReference.sqlCondition(value)
        }
    }

    /// What the copy's `INSERT … SELECT` takes for this column: NULL where the value moves (this mover fills it in),
    /// the old value elsewhere.
    var copiedValue: String { "CASE WHEN \(condition) THEN NULL ELSE \(SQL.identifier(sourceColumn)) END" }

    /// The SQL, over an old row, of the bytes its value moves (0 when it does not move), which bounds a chunk: a
    /// value's length, or for a file the size `ferry_blobs` recorded when `sizes` (the table exists).
    func movedBytes(sizes: Bool) -> String {
        let value = SQL.identifier(sourceColumn)
        switch move {
        case .toFiles:
            return "CASE WHEN \(condition) THEN length(\(value)) ELSE 0 END"
        case .toRows:
            guard sizes else { return "0" }
            return "CASE WHEN \(condition) THEN coalesce((SELECT b.size FROM ferry_blobs AS b WHERE b.hash = "
                + "\(BlobReference.sqlHash(value))), 0) ELSE 0 END"
        }
    }

    /// Moves the values of the old rows with `_pk` in `(after, through]`, whose copies the chunk has just inserted;
    /// `each` is called after every value with how many this call moved.
    ///
    /// - Throws: ``StoreError`` `.blobFileMissing`, `.blobFileFailed` or `.invalidBlobReference` naming the row
    ///   whose value cannot be moved; `SQLiteError`. The chunk must then roll back (call ``discard()`` first).
    func moveValues(after: Int64, through: Int64, each: (Int) throws -> Void) throws -> Int {
        if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: Self.pieceSize) }
        let select = try selectStatement()
        try select.bind([.integer(after), .integer(through)])
        // An open handle would keep the chunk from committing (a blob handle counts as a statement in progress).
        defer {
            select.reset()
            handle = nil
        }
        var moved = 0
        while try select.step() {
            let row = select.int64(at: 0)
            switch move {
            case .toFiles:
                let reference = try storeInFile(row: row)
                let update = try updateStatement()
                try update.bind(reference.storedText, at: 1)
                try update.bind(row, at: 2)
                try update.run()
            case .toRows:
                let text = select.text(at: 1) ?? ""
                guard let reference = BlobReference(storedText: text) else {
                    throw StoreError(
                        .invalidBlobReference,
                        "row \(row) of '\(sourceTable)' holds no blob reference in '\(sourceColumn)'",
                        path: connection.path)
                }
                try loadIntoRow(row, from: reference)
            }
            moved += 1
            try each(moved)
        }
        return moved
    }

    /// Makes the files of the chunk durable under their names; call it last before the chunk commits.
    ///
    /// - Throws: ``StoreError`` `.blobFileFailed`.
    func publish() throws {
        do {
            try batch.publish()
        } catch {
            throw StoreError.blobFile("making the blob files of a migration chunk durable", error)
        }
    }

    /// Removes the chunk's temporary files after a failure (the chunk rolls back).
    func discard() {
        batch.discard()
    }

    // MARK: - One value

    /// Streams the old row's value into a blob file and registers it; returns its reference.
    private func storeInFile(row: Int64) throws -> BlobReference {
        let value = try openHandle(table: sourceTable, column: sourceColumn, row: row, writable: false)
        let stream: BlobFileStream
        do {
            stream = try BlobFileStream(folder: folder)
        } catch {
            throw StoreError.blobFile("moving the value of '\(name)' of row \(row) to a blob file", error)
        }
        let reference: BlobReference
        do {
            var offset = 0
            while offset < value.count {
                let count = min(buffer.count, value.count - offset)
                try buffer.withUnsafeMutableBytes { bytes in
                    let piece = UnsafeMutableRawBufferPointer(rebasing: bytes[..<count])
                    try value.read(into: piece, at: offset)
                    try stream.append(UnsafeRawBufferPointer(piece))
                }
                offset += count
            }
            reference = try stream.finish()
            try batch.add(stream, as: reference)
        } catch let error as BlobFileError {
            stream.discard()
            throw StoreError.blobFile("moving the value of '\(name)' of row \(row) to a blob file", error)
        } catch {
            stream.discard()
            throw error
        }
        let register = try connection.cachedStatement(
            "INSERT INTO ferry_blobs (hash, size, refs) VALUES (?, ?, 0) "
                + "ON CONFLICT (hash) DO UPDATE SET size = excluded.size")
        try register.bind(reference.hash, at: 1)
        try register.bind(value.count, at: 2)
        try register.run()
        return reference
    }

    /// Makes room for the file's bytes in the copy's row, then streams them in.
    private func loadIntoRow(_ row: Int64, from reference: BlobReference) throws {
        let reader: BlobFileReader
        do {
            reader = try BlobFileReader(folder: folder, reference: reference)
        } catch let error as StoreError {
            throw StoreError(
                error.code, "cannot move the value of '\(name)' of row \(row) back into its row: \(error.message)",
                path: error.path, underlying: error.underlying)
        }
        let room = try connection.cachedStatement(
            "UPDATE \(SQL.identifier(copyTable)) SET \(SQL.identifier(copyColumn)) = zeroblob(?) WHERE \"_pk\" = ?")
        try room.bind(reader.size, at: 1)
        try room.bind(row, at: 2)
        try room.run()
        guard reader.size > 0 else { return }
        let value = try openHandle(table: copyTable, column: copyColumn, row: row, writable: true)
        var offset = 0
        while offset < reader.size {
            let count = min(buffer.count, reader.size - offset)
            try buffer.withUnsafeMutableBytes { bytes in
                let piece = UnsafeMutableRawBufferPointer(rebasing: bytes[..<count])
                try reader.readExactly(into: piece)
                try value.write(UnsafeRawBufferPointer(piece), at: offset)
            }
            offset += count
        }
    }

    /// The incremental blob handle, pointed at `row` (one handle per mover, moved from row to row).
    private func openHandle(table: String, column: String, row: Int64, writable: Bool) throws -> IncrementalBlob {
        if let handle {
            do {
                try handle.reopen(row: row)
                return handle
            } catch {
                // A handle that failed to move is only good for closing: open a new one, which reports any real error.
                self.handle = nil
            }
        }
        let opened = try connection.openBlob(table: table, column: column, row: row, writable: writable)
        handle = opened
        return opened
    }

    private func selectStatement() throws -> Statement {
        if let select { return select }
        let columns = move == .toRows ? "\"_pk\", \(SQL.identifier(sourceColumn))" : "\"_pk\""
        let statement = try connection.prepare(
            "SELECT \(columns) FROM \(SQL.identifier(sourceTable)) WHERE \"_pk\" > ? AND \"_pk\" <= ? AND "
                + "\(condition) ORDER BY \"_pk\"")
        select = statement
        return statement
    }

    private func updateStatement() throws -> Statement {
        if let update { return update }
        let statement = try connection.prepare(
            "UPDATE \(SQL.identifier(copyTable)) SET \(SQL.identifier(copyColumn)) = ? WHERE \"_pk\" = ?")
        update = statement
        return statement
    }
}
