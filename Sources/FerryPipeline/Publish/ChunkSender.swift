import FerryPostgres

/// Sends chunks of COPY text into the table the way the publish's mode says, each in one transaction with the
/// checkpoint that counts it. A chunk PostgreSQL refuses (a data error) is rolled back and sent again row by row,
/// each row under a savepoint: the refused rows become rejects with PostgreSQL's reason, the others commit.
struct ChunkSender {
    private let copySQL: String
    /// The merge of the staging table into the table (upserts): counts inserted and updated rows.
    private let mergeSQL: String?
    private let clearStagingSQL = "DELETE FROM ferry_staging"

    /// A sender for `run`'s mode and table; an upsert creates its session's staging table, unless `direct`: an
    /// upsert that sends every row into a table found empty copies straight into it (nothing to merge with).
    ///
    /// - Throws: ``PostgresError``.
    init(run: PublishRun, direct: Bool = false) throws {
        let table = run.table
        let columns = table.columns.map { PostgresConnection.identifier($0.name) }.joined(separator: ", ")
        switch run.spec.mode {
        case .upsert where !direct:
            let target = PostgresConnection.qualifiedIdentifier(table.name)
            // Temporary (this session's own), emptied by every commit, with the table's columns and NOT NULLs.
            try run.connection.execute(
                "CREATE TEMPORARY TABLE IF NOT EXISTS ferry_staging (LIKE \(target) INCLUDING DEFAULTS) "
                    + "ON COMMIT DELETE ROWS")
            copySQL = "COPY ferry_staging (\(columns)) FROM STDIN"
            mergeSQL = Self.mergeSQL(table: table, columns: columns)
        case .upsert, .replace, .append:
            copySQL = "COPY \(PostgresConnection.qualifiedIdentifier(run.target)) (\(columns)) FROM STDIN"
            mergeSQL = nil
        }
    }

    /// `INSERT … SELECT … ON CONFLICT (key) DO UPDATE … WHERE (columns) IS DISTINCT FROM (excluded columns)`,
    /// returning how many rows were inserted and how many updated (unchanged rows are not rewritten).
    private static func mergeSQL(table: PublishTable, columns: String) -> String {
        let key = table.conflictKey ?? []
        let target = PostgresConnection.qualifiedIdentifier(table.name)
        let others = table.columns.map(\.name).filter { !key.contains($0) }.map(PostgresConnection.identifier)
        let action: String
        if others.isEmpty {
            action = "DO NOTHING"
        } else {
            let assignments = others.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            let current = others.map { "t.\($0)" }.joined(separator: ", ")
            let incoming = others.map { "EXCLUDED.\($0)" }.joined(separator: ", ")
            action = "DO UPDATE SET \(assignments) WHERE ROW(\(current)) IS DISTINCT FROM ROW(\(incoming))"
        }
        return """
            WITH merged AS (INSERT INTO \(target) AS t (\(columns)) SELECT \(columns) FROM ferry_staging \
            ON CONFLICT (\(key.map(PostgresConnection.identifier).joined(separator: ", "))) \(action) \
            RETURNING (xmax = 0) AS inserted) \
            SELECT count(*) FILTER (WHERE inserted), count(*) FILTER (WHERE NOT inserted) FROM merged
            """
    }

    /// Sends `chunk` and commits it with `run`'s checkpoint, counted.
    ///
    /// - Throws: ``PipelineError`` `.tooManyRejects` (nothing of the chunk committed); ``PostgresError`` for
    ///   anything but refused data (the connection lost…).
    mutating func send(_ chunk: CopyChunk, run: inout PublishRun) throws {
        let connection = run.connection
        var checkpoint = run.checkpoint
        do {
            try connection.transaction {
                let (inserted, updated) = try chunk.bytes.withUnsafeBytes { try apply($0, on: connection) }
                count(&checkpoint, sent: chunk.count, inserted: inserted, updated: updated, rejected: 0)
                try checkpoint.save(of: run.table.name, entity: run.spec.entity, mode: run.spec.mode, on: connection)
            }
            run.checkpoint = checkpoint
            return
        } catch let error as PostgresError where error.isDataError {
            checkpoint = run.checkpoint
        }
        var rejects: [PublishReject] = []
        let limit = run.spec.maxRejects
        try connection.transaction {
            var inserted = 0
            var updated = 0
            for index in 0..<chunk.count {
                let line = chunk.line(index)
                try connection.execute("SAVEPOINT ferry_row")
                do {
                    let done = try line.withUnsafeBytes { try apply($0, on: connection) }
                    if mergeSQL != nil { try connection.execute(clearStagingSQL) }
                    try connection.execute("RELEASE SAVEPOINT ferry_row")
                    inserted += done.inserted
                    updated += done.updated
                } catch let error as PostgresError where error.isDataError {
                    try connection.execute("ROLLBACK TO SAVEPOINT ferry_row")
                    rejects.append(
                        PublishReject(
                            row: chunk.firstRow + index, record: String(decoding: line.dropLast(), as: UTF8.self),
                            reason: error.reasonText))
                    if checkpoint.counts.rejected + rejects.count > limit {
                        throw PipelineError(
                            .tooManyRejects,
                            "PostgreSQL refused \(checkpoint.counts.rejected + rejects.count) records of "
                                + "\(run.spec.entity), more than the \(limit) allowed; the last: row "
                                + "\(chunk.firstRow + index): \(error.reasonText)")
                    }
                }
            }
            count(&checkpoint, sent: chunk.count, inserted: inserted, updated: updated, rejected: rejects.count)
            try checkpoint.save(of: run.table.name, entity: run.spec.entity, mode: run.spec.mode, on: connection)
        }
        run.checkpoint = checkpoint
        run.rejects += rejects
    }

    /// COPYs `data` and, for an upsert, merges it; returns the rows inserted and updated.
    private func apply(_ data: UnsafeRawBufferPointer, on connection: PostgresConnection) throws -> (
        inserted: Int, updated: Int
    ) {
        let copied = try connection.copy(copySQL, data: data)
        guard let mergeSQL else { return (copied, 0) }
        let counts = try connection.execute(mergeSQL).rows.first ?? []
        return (Int(counts.first.flatMap { $0 } ?? "0") ?? 0, Int(counts.last.flatMap { $0 } ?? "0") ?? 0)
    }

    private func count(_ checkpoint: inout PublishCheckpoint, sent: Int, inserted: Int, updated: Int, rejected: Int) {
        checkpoint.rowsDone += sent
        checkpoint.counts.read += sent
        checkpoint.counts.inserted += inserted
        checkpoint.counts.updated += updated
        checkpoint.counts.rejected += rejected
        checkpoint.counts.unchanged += sent - inserted - updated - rejected
    }
}

extension PostgresError {
    /// The server's reason for refusing a record, for the rejects: message, SQLSTATE and detail.
    var reasonText: String {
        var text = message
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let detail, !detail.isEmpty { text += "; \(detail)" }
        return text
    }
}
