import FerryPostgres

/// How far the publishes of one table got, kept on the PostgreSQL side in `ferry_publish_checkpoints` (one row per
/// table) and written in the same transaction as every chunk, so the checkpoint and the rows it counts commit
/// together or not at all.
///
/// A publish in progress records the store's history token it publishes up to, the token it publishes changes
/// after (`nil` for everything), how many rows its committed chunks held, whether its deletes are done, and its
/// counts so far. A complete publish moves its token to ``publishedToken``: the next publish sends what changed
/// after it.
struct PublishCheckpoint: Sendable, Hashable {
    /// The checkpoint table, in the connection's current schema.
    static let table = "ferry_publish_checkpoints"

    /// The store's history token the last complete publish reached; `nil` before the first one (or for a store
    /// without history).
    var publishedToken: Int64?
    /// Whether a publish started and has not finished (killed, or stopped by an error).
    var inProgress = false
    /// What the publish in progress sends (mode, entity, fields, predicate): a resume must send the same.
    var fingerprint = ""
    /// The history token the publish in progress publishes up to.
    var pendingToken: Int64?
    /// The token the publish in progress sends changes after; `nil` sends every row.
    var baseToken: Int64?
    /// The rows the committed chunks of the publish in progress held.
    var rowsDone = 0
    /// Whether the publish in progress has deleted the objects deleted since ``baseToken``.
    var deletesDone = false
    /// The counts of the publish in progress (or the last one).
    var counts = StepCounts()

    /// Creates the checkpoint table when missing.
    ///
    /// - Throws: ``PostgresError``.
    static func createTable(on connection: PostgresConnection) throws {
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS \(table) (
                table_name text PRIMARY KEY, entity text NOT NULL, mode text NOT NULL,
                published_token bigint, in_progress boolean NOT NULL, fingerprint text NOT NULL,
                pending_token bigint, base_token bigint, rows_done bigint NOT NULL, deletes_done boolean NOT NULL,
                sent bigint NOT NULL, inserted bigint NOT NULL, updated bigint NOT NULL, unchanged bigint NOT NULL,
                deleted bigint NOT NULL, rejected bigint NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())
            """)
    }

    /// The checkpoint of `tableName`, or `nil` when it was never published.
    ///
    /// - Throws: ``PostgresError``.
    static func read(of tableName: String, on connection: PostgresConnection) throws -> PublishCheckpoint? {
        let result = try connection.execute(
            """
            SELECT published_token, in_progress, fingerprint, pending_token, base_token, rows_done, deletes_done,
                sent, inserted, updated, unchanged, deleted, rejected
            FROM \(table) WHERE table_name = $1
            """, [tableName])
        guard let row = result.rows.first else { return nil }
        let number = { (index: Int) in Int(row[index] ?? "0") ?? 0 }
        var checkpoint = PublishCheckpoint()
        checkpoint.publishedToken = row[0].flatMap { Int64($0) }
        checkpoint.inProgress = row[1] == "t"
        checkpoint.fingerprint = row[2] ?? ""
        checkpoint.pendingToken = row[3].flatMap { Int64($0) }
        checkpoint.baseToken = row[4].flatMap { Int64($0) }
        checkpoint.rowsDone = number(5)
        checkpoint.deletesDone = row[6] == "t"
        checkpoint.counts.read = number(7)
        checkpoint.counts.inserted = number(8)
        checkpoint.counts.updated = number(9)
        checkpoint.counts.unchanged = number(10)
        checkpoint.counts.deleted = number(11)
        checkpoint.counts.rejected = number(12)
        return checkpoint
    }

    /// Writes this checkpoint for `tableName`; call it inside the transaction whose work it counts.
    ///
    /// - Throws: ``PostgresError``.
    func save(of tableName: String, entity: String, mode: PublishSpec.Mode, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            INSERT INTO \(Self.table) (table_name, entity, mode, published_token, in_progress, fingerprint,
                pending_token, base_token, rows_done, deletes_done, sent, inserted, updated, unchanged, deleted,
                rejected, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, now())
            ON CONFLICT (table_name) DO UPDATE SET entity = EXCLUDED.entity, mode = EXCLUDED.mode,
                published_token = EXCLUDED.published_token, in_progress = EXCLUDED.in_progress,
                fingerprint = EXCLUDED.fingerprint, pending_token = EXCLUDED.pending_token,
                base_token = EXCLUDED.base_token, rows_done = EXCLUDED.rows_done,
                deletes_done = EXCLUDED.deletes_done, sent = EXCLUDED.sent, inserted = EXCLUDED.inserted,
                updated = EXCLUDED.updated, unchanged = EXCLUDED.unchanged, deleted = EXCLUDED.deleted,
                rejected = EXCLUDED.rejected, updated_at = now()
            """,
            [
                tableName, entity, mode.rawValue, publishedToken.map(String.init), inProgress ? "t" : "f", fingerprint,
                pendingToken.map(String.init), baseToken.map(String.init), String(rowsDone), deletesDone ? "t" : "f",
                String(counts.read), String(counts.inserted), String(counts.updated), String(counts.unchanged),
                String(counts.deleted), String(counts.rejected),
            ])
    }
}
