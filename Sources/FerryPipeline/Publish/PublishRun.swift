import FerryPostgres
import FerryStore
import Foundation
import Logging

/// One publish, on one store snapshot and one PostgreSQL connection (both confined to the snapshot's queue): takes
/// the table's advisory lock, reads the checkpoint, decides between resuming and a new pass (full or incremental),
/// prepares the table, applies the deletes, sends the chunks and finishes with the checkpoint.
struct PublishRun {
    let spec: PublishSpec
    let table: PublishTable
    let connection: PostgresConnection
    let snapshot: ReadSnapshot
    let logger: Logger
    let progress: (@Sendable (Int) -> Void)?
    var checkpoint = PublishCheckpoint()
    var rejects: [PublishReject] = []

    init(
        spec: PublishSpec, table: PublishTable, connection: PostgresConnection, snapshot: ReadSnapshot,
        logger: Logger, progress: (@Sendable (Int) -> Void)?
    ) {
        self.spec = spec
        self.table = table
        self.connection = connection
        self.snapshot = snapshot
        self.logger = logger
        self.progress = progress
    }

    /// The name of the advisory lock of `table`.
    static func lockName(of table: String) -> String { "ferry.publish:" + table }

    /// The table rows go into: the new table a replace fills, else the table itself.
    var target: String { spec.mode == .replace ? table.replacementName : table.name }

    mutating func run() throws -> Publisher.Result {
        guard try connection.tryAdvisoryLock(Self.lockName(of: table.name)) else {
            throw PipelineError(
                .storeLocked,
                "another publish of the table \(table.name) is running (it holds the table's advisory lock); "
                    + "retry when it has finished")
        }
        defer { _ = try? connection.unlock(Self.lockName(of: table.name)) }
        try PublishCheckpoint.createTable(on: connection)
        let previous = try PublishCheckpoint.read(of: table.name, on: connection)
        let existed = try prepareTable()
        let current = snapshot.historyToken
        let resumed: Bool
        if let previous, previous.inProgress, previous.fingerprint == spec.fingerprint,
            previous.pendingToken == current || spec.mode == .append, try canResume()
        {
            // The same rows in the same order (the store did not change, or an append-only entity only grew):
            // skip exactly what the committed chunks held.
            checkpoint = previous
            resumed = true
            logger.info("resuming the publish of \(table.name) after \(previous.rowsDone) rows")
        } else {
            checkpoint = PublishCheckpoint()
            checkpoint.publishedToken = previous?.publishedToken
            checkpoint.inProgress = true
            checkpoint.fingerprint = spec.fingerprint
            checkpoint.pendingToken = current
            // Changes only: after a complete publish of the same rows into a table that is still there, from a
            // store whose history goes on.
            if spec.mode != .replace, existed, snapshot.hasHistory, let published = previous?.publishedToken,
                previous?.fingerprint == spec.fingerprint
            {
                checkpoint.baseToken = published
            }
            resumed = false
            try startPass()
        }
        if !checkpoint.deletesDone { try applyDeletes() }
        let source = try PublishRowSource(
            spec, table: table, snapshot: snapshot, changedAfter: checkpoint.baseToken, skipping: checkpoint.rowsDone)
        var chunk = CopyChunk()
        var sender = try ChunkSender(run: self, direct: try sendsIntoEmptyTable())
        while try source.fill(&chunk, limit: spec.chunkSize) > 0 {
            try sender.send(chunk, run: &self)
            progress?(checkpoint.counts.read)
        }
        try finish()
        return Publisher.Result(
            table: table.name, counts: checkpoint.counts, resumed: resumed, incremental: checkpoint.baseToken != nil,
            historyToken: checkpoint.publishedToken, rejects: rejects)
    }

    /// Creates the table when missing (not for a replace, whose new table is made by ``startPass()``), or checks
    /// that the existing one fits; returns whether it existed.
    private func prepareTable() throws -> Bool {
        // A replace makes the table anew, whatever the old one looks like.
        guard spec.mode != .replace else { return false }
        if try table.checkExisting(named: table.name, on: connection, upsert: spec.mode == .upsert) { return true }
        try connection.transaction {
            try connection.execute(table.createSQL(named: table.name))
            for index in table.createIndexSQL(on: table.name) { try connection.execute(index) }
        }
        logger.info("created the table \(table.name)")
        return false
    }

    /// Whether this upsert sends every row, from the first, into a table that holds none: then each chunk is copied
    /// straight into the table, as fast as COPY goes (a resumed pass merges through the staging table again).
    private func sendsIntoEmptyTable() throws -> Bool {
        guard spec.mode == .upsert, checkpoint.baseToken == nil, checkpoint.rowsDone == 0 else { return false }
        return try connection.execute(
            "SELECT NOT EXISTS (SELECT 1 FROM \(PostgresConnection.qualifiedIdentifier(table.name)))"
        ).rows.first?[0] == "t"
    }

    /// Whether the publish in progress can go on: a replace needs the new table it was filling.
    private func canResume() throws -> Bool {
        guard spec.mode == .replace else { return true }
        return try connection.execute("SELECT to_regclass($1) IS NOT NULL", [
            PostgresConnection.qualifiedIdentifier(table.replacementName)
        ]).rows.first?[0] == "t"
    }

    /// Records the new pass; a replace makes its new, empty table in the same transaction.
    private func startPass() throws {
        try connection.transaction {
            if spec.mode == .replace {
                let new = PostgresConnection.qualifiedIdentifier(table.replacementName)
                try connection.execute("DROP TABLE IF EXISTS \(new)")
                try connection.execute(table.createSQL(named: table.replacementName))
            }
            try checkpoint.save(of: table.name, entity: spec.entity, mode: spec.mode, on: connection)
        }
    }

    /// Deletes the rows of the objects deleted since the base token (an incremental upsert), in one transaction
    /// with the checkpoint that says so; objects deleted and inserted again with the same key come back with the
    /// chunks that follow.
    private mutating func applyDeletes() throws {
        if spec.mode == .upsert, let base = checkpoint.baseToken, let key = table.conflictKey {
            let keys = try PublishRowSource.deletedKeys(of: spec.entity, key: key, after: base, in: snapshot)
            let condition = key.enumerated().map { "\(PostgresConnection.identifier($1)) = $\($0 + 1)" }
                .joined(separator: " AND ")
            let sql = "DELETE FROM \(PostgresConnection.qualifiedIdentifier(table.name)) WHERE \(condition)"
            var checkpoint = self.checkpoint
            try connection.transaction {
                for values in keys where values.allSatisfy({ $0 != nil }) {
                    checkpoint.counts.deleted += try connection.execute(sql, values).affectedRows
                }
                checkpoint.deletesDone = true
                try checkpoint.save(of: table.name, entity: spec.entity, mode: spec.mode, on: connection)
            }
            self.checkpoint = checkpoint
        } else {
            checkpoint.deletesDone = true
        }
    }

    /// Ends the pass: a replace swaps its new table in (with the unique indexes, built once on the full table);
    /// the checkpoint records the token reached, in the same transaction.
    private mutating func finish() throws {
        var checkpoint = self.checkpoint
        checkpoint.inProgress = false
        checkpoint.publishedToken = checkpoint.pendingToken
        try connection.transaction {
            if spec.mode == .replace {
                try connection.execute("DROP TABLE IF EXISTS \(PostgresConnection.qualifiedIdentifier(table.name))")
                try connection.execute(
                    "ALTER TABLE \(PostgresConnection.qualifiedIdentifier(table.replacementName)) RENAME TO "
                        + PostgresConnection.identifier(table.unqualifiedName))
                for index in table.createIndexSQL(on: table.name) { try connection.execute(index) }
            }
            try checkpoint.save(of: table.name, entity: spec.entity, mode: spec.mode, on: connection)
        }
        self.checkpoint = checkpoint
    }
}
