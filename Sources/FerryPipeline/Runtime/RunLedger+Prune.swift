import FerrySQLite
public import Foundation

/// Bounding what the run ledger keeps (`ferry prune`): a nightly job adds a run, its rejects and, for full syncs,
/// its seen keys every night.
extension RunLedger {
    /// What ``prune(keepingRuns:rejectsBefore:)`` deleted.
    public struct PruneResult: Sendable, Hashable, Codable {
        /// Runs deleted from `ferry_runs`, with their rejects and seen keys.
        public var runs = 0
        /// Rejected records deleted from `ferry_rejects` (of deleted runs, or recorded before the date).
        public var rejects = 0
    }

    /// Deletes all but the latest `keepingRuns` runs (each pipeline's latest run is always kept, so `--resume`
    /// and incremental work still find it), with their rejects and seen keys; then the rejects of runs started
    /// before `rejectsBefore`. Both are optional; the deletions are one transaction.
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public func prune(keepingRuns: Int?, rejectsBefore: Date?) async throws -> PruneResult {
        let cutoff = rejectsBefore.map { Self.timestamp($0) }
        return try await Self.write(store, "pruning the run ledger") { connection in
            try connection.transaction(.immediate) {
                var result = PruneResult()
                if let keepingRuns {
                    try connection.execute(
                        "CREATE TEMP TABLE ferry_pruned_runs AS SELECT id FROM ferry_runs WHERE id NOT IN "
                            + "(SELECT id FROM ferry_runs ORDER BY id DESC LIMIT \(max(keepingRuns, 0))) "
                            + "AND id NOT IN (SELECT max(id) FROM ferry_runs GROUP BY pipeline)")
                    defer { try? connection.execute("DROP TABLE temp.ferry_pruned_runs") }
                    result.rejects += try Self.delete(
                        "DELETE FROM ferry_rejects WHERE run IN (SELECT id FROM temp.ferry_pruned_runs)", on: connection)
                    _ = try Self.delete(
                        "DELETE FROM ferry_seen WHERE run IN (SELECT id FROM temp.ferry_pruned_runs)", on: connection)
                    result.runs = try Self.delete(
                        "DELETE FROM ferry_runs WHERE id IN (SELECT id FROM temp.ferry_pruned_runs)", on: connection)
                }
                if let cutoff {
                    let statement = try connection.prepare(
                        "DELETE FROM ferry_rejects WHERE run IN (SELECT id FROM ferry_runs WHERE started_at < ?)")
                    try statement.bind([.text(cutoff)])
                    try statement.run()
                    result.rejects += connection.changes
                }
                return result
            }
        }
    }

    private static func delete(_ sql: String, on connection: Connection) throws -> Int {
        try connection.execute(sql)
        return connection.changes
    }
}
