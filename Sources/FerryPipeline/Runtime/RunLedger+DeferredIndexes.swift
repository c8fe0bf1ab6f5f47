import FerrySQLite
import FerryStore
public import Logging

/// An import into an empty table defers the table's indexes (see ``PersistentStore/deferIndexes(ofEntity:owner:)``)
/// and builds them when it ends; the rows the build deletes (their key repeated an earlier record's) move from the
/// run's inserted count to its unchanged count (its kept count when their values differed) in the build's own
/// transaction, so the ledger keeps agreeing with the
/// rows.
extension RunLedger {
    /// The owner a run records for the indexes it defers.
    static func indexOwner(run: Int64) -> String { "ferry run \(run)" }

    /// The run an owner names, when a run deferred them.
    static func run(owningIndexes owner: String) -> Int64? {
        owner.hasPrefix("ferry run ") ? Int64(owner.dropFirst("ferry run ".count)) : nil
    }

    /// The SQL that moves `removed` records of `run` from its inserted count to its unchanged count, or its kept
    /// count for those whose values differed from the row kept.
    func duplicatesCompanion(run: Int64) -> @Sendable (Connection, PersistentStore.RemovedDuplicates) throws -> Void {
        { connection, removed in
            guard removed.count > 0 else { return }
            let update = try connection.prepare(
                "UPDATE ferry_runs SET counts = json_set(counts, '$.inserted', json_extract(counts, '$.inserted') - ?1, "
                    + "'$.unchanged', json_extract(counts, '$.unchanged') + ?1 - ?2, "
                    + "'$.kept', coalesce(json_extract(counts, '$.kept'), 0) + ?2) WHERE id = ?3")
            try update.bind([.integer(Int64(removed.count)), .integer(Int64(removed.differing)), .integer(run)])
            try update.run()
        }
    }

    /// Builds the indexes that runs deferred and never built (their process ended first), correcting each owning
    /// run's counts. Whoever holds the store's lock calls this before writing: until then the tables lack their
    /// uniqueness indexes.
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public func finishDeferredIndexes(logger: Logger) async throws {
        for deferred in try await store.deferredIndexes() {
            let run = Self.run(owningIndexes: deferred.owner)
            let removed = try await store.buildDeferredIndexes(
                ofTable: deferred.table, removing: run.map(duplicatesCompanion(run:))
            ).count
            logger.warning(
                "built the indexes of \(deferred.table) that \(deferred.owner) deferred and did not build (it ended first); removed \(removed) rows whose key repeated an earlier record's"
            )
        }
    }
}
