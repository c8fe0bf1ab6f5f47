import Foundation
import FerryStore

/// Deletes the rows of an import's entity that its inputs no longer hold: the input is the whole truth for its
/// scope. Runs after the last chunk, with a guard that refuses a mass deletion (a truncated input file must not
/// empty the table).
///
/// Each chunk recorded the keys it read — refused records' keys too, so a bad record never deletes its row — in
/// `ferry_seen`, with its checkpoint; a resumed run counts the keys of the runs it continues.
struct FullSyncer: Sendable {
    let store: PersistentStore
    let plan: ImportPlan
    let sync: FullSync
    /// The run and those it continued.
    let runs: [Int64]
    let author: String

    /// Deletes the unseen rows; returns how many objects went (cascades included).
    ///
    /// - Throws: ``PipelineError`` `.syncGuard` when more than ``FullSync/maxDeleteFraction`` of the scope would go
    ///   without ``FullSync/force``; ``FetchPredicateError`` for a bad scope; ``StoreError``.
    func run() async throws -> Int {
        let entity = plan.entity.name
        var scoped: [Int64]?
        if let scope = sync.scope {
            var request = FetchRequest(entityName: entity, resultType: .managedObjectID)
            request.predicate = try FetchPredicate(format: scope)
            if case .objectIDs(let ids) = try await store.fetch(request) { scoped = ids.map(\.primaryKey) }
        }
        let (scopeCount, unseen) = try await unseenRows(scoped: scoped)
        guard !unseen.isEmpty else { return 0 }
        let fraction = Double(unseen.count) / Double(max(scopeCount, 1))
        if fraction > sync.maxDeleteFraction && !sync.force {
            throw PipelineError(
                .syncGuard,
                "full sync of \(entity) would delete \(unseen.count) of \(scopeCount) rows "
                    + "(\(Self.percent(fraction))), more than the guard allows (\(Self.percent(sync.maxDeleteFraction))); "
                    + "nothing was deleted. Check the input is complete, or set fullSync.force (--force-sync) to delete them"
            )
        }
        var request = BatchDeleteRequest(objectIDs: unseen, resultType: .count)
        request.transactionAuthor = author
        let result = try await store.execute(request)
        return result.deletedCount + result.cascadedCount
    }

    /// How many rows the scope holds, and the object IDs of those whose key no chunk of `runs` saw.
    private func unseenRows(scoped: [Int64]?) async throws -> (Int, [ObjectID]) {
        guard store.schema.mapping(for: plan.entity.name) != nil else { return (0, []) }
        let seen = KeyTextList(table: RunLedger.seenKeysTable, column: "key", filterColumn: "run", filterValues: runs)
        let (count, unseen) = try await store.objectIDs(
            ofEntity: plan.entity.name, keyedBy: plan.keys, notIn: seen, amongPrimaryKeys: scoped)
        return (count, unseen)
    }

    private static func percent(_ fraction: Double) -> String {
        fraction * 100 < 10 ? String(format: "%.1f%%", fraction * 100) : String(format: "%.0f%%", fraction * 100)
    }
}
