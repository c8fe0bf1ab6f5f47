import FerrySQLite
import FerryStore

extension RunLedger {
    /// The latest `limit` runs recorded in the store `snapshot` reads, newest first (none when the store has no
    /// ledger), for `ferry inspect`.
    ///
    /// - Throws: `StoreError` when reading fails.
    static func recentRuns(in snapshot: ReadSnapshot, limit: Int) throws -> [StoreInspection.Run] {
        guard try snapshot.hasTable("ferry_runs") else { return [] }
        return try snapshot.rows(
            "SELECT id, pipeline, status, started_at, finished_at, seconds, counts, "
                + "\(try kindExpression(in: snapshot)) FROM ferry_runs ORDER BY id DESC LIMIT ?",
            [.integer(Int64(limit))]
        ).map { row in
            StoreInspection.Run(
                id: row[0].integer ?? 0, pipeline: row[1].text ?? "", kind: row[7].text ?? "import",
                status: row[2].text ?? "", startedAt: row[3].text ?? "", finishedAt: row[4].text,
                seconds: row[5].real, counts: (row[6].text).flatMap(StoreInspection.counts(from:)) ?? [:])
        }
    }

    /// The ids of the successful import runs in the ledger, oldest first (the runs whose data the store holds);
    /// none when no run has made the ledger.
    ///
    /// - Throws: `StoreError` when reading fails.
    static func succeededRuns(in snapshot: ReadSnapshot) throws -> [Int64] {
        guard try snapshot.hasTable("ferry_runs") else { return [] }
        let kind = try kindExpression(in: snapshot)
        return try snapshot.rows(
            "SELECT id FROM ferry_runs WHERE status = 'succeeded' AND \(kind) = 'import' ORDER BY id"
        ).compactMap { $0[0].integer }
    }
}
