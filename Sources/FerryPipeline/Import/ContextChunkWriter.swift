import FerryIO
import FerryStore

/// Commits each chunk on a background context, as Core Data importers do: one fetch of the chunk's stored
/// objects by key (with `fetchBatchSize`), insert or update, validation and lifecycle callbacks, a save under the
/// step's merge policy with the checkpoint in its transaction, then `reset()` so memory stays flat.
///
/// Our rule, shared with batch mode so both modes agree: a record whose key is stored changes the stored object
/// only under object-trump (or overwrite); under store-trump (or rollback) the stored object is kept and the
/// record counts as unchanged, or as kept when its values differ from the stored ones; under error the step fails with the conflict. An update that sets every value to
/// what is stored counts as unchanged.
///
/// A record refused while committing (its object fails validation at the save, or a later record of its key finds
/// its object invalid) is taken out and the chunk applied again from a clean context, so the result is what it
/// would have been had the record not been in the input: a later record of the same key is then inserted or
/// refused on its own merits. Refusals are rare; a chunk without them is applied once.
///
/// Two chunks are in hand at once: while one saves, the next one (handed over as `upcoming` when the reader has
/// it) is applied on a context of its own, so the fetch, object and validation work of one chunk overlaps the
/// save of the other. Chunks still save one after the other, each with its checkpoint. A chunk is applied ahead
/// only when nothing in it can depend on the one saving: none of its keys is in that chunk, and no relationship
/// creates missing destinations or leads to the imported table itself; otherwise it is applied once the save is
/// done.
///
/// The same condition lets the reader hand each chunk's rows over in key order (``takesRowsInKeyOrder``): the
/// context then inserts its objects in key order, so the save walks the uniqueness index once, from one end to the
/// other. In record order it dirtied the index's pages at random: SQLite spills dirty pages beyond its cache to the
/// log before the commit, and a spilled page dirtied again is written again, many times over on a large import.
///
/// A first load whose table's indexes the importer deferred (``insertsEveryRecord``, see
/// ``PersistentStore/deferIndexes(ofEntity:owner:)``) inserts every record as a new object: no fetch by key (the
/// table has no index to find keys by, and holds only this run's rows), no key order, and a chunk applied ahead
/// whatever keys it shares with the one saving. The index build that ends the load then deletes each row whose key
/// repeats an earlier record's, the first kept, as store-trump keeps the stored object; the importer counts those
/// records unchanged. Such a record is validated as the new object it was, as a Core Data save validates an
/// inserted object before it resolves its uniqueness conflict: an invalid one is rejected
/// rather than counted unchanged, wherever the chunks split. Each commit then writes the chunk's new table pages
/// and no index pages, which makes a first load in context mode much faster (Tests/Benchmarks/README.md).
struct ContextChunkWriter: ChunkWriter {
    let container: PersistentContainer
    let plan: ImportPlan
    let author: String
    /// Whether every record is inserted as a new object, the table's indexes being deferred (see the summary).
    let insertsEveryRecord: Bool
    /// The next chunk, applied while the current one saves.
    private let lookahead = ChunkLookahead()
    /// Whether the mapping lets a chunk be applied before the previous one is saved (see the type's summary).
    private let appliesAhead: Bool
    var looksAhead: Bool { appliesAhead }
    var takesRowsInKeyOrder: Bool { appliesAhead && !insertsEveryRecord }

    init(container: PersistentContainer, plan: ImportPlan, author: String, insertsEveryRecord: Bool) {
        self.container = container
        self.plan = plan
        self.author = author
        self.insertsEveryRecord = insertsEveryRecord
        let table = container.model.rootEntity(of: plan.entity.name)
        appliesAhead = plan.columns.allSatisfy { column in
            guard case .relationshipKey(_, let relationship) = column.source else { return true }
            return !relationship.createsMissing && relationship.destinationTable != table
        }
    }

    func commit(
        _ chunk: Chunk, upcoming: Task<Chunk?, any Error>?,
        companion: @escaping @Sendable (_ outcome: ChunkOutcome) -> TransactionCompanion
    ) async throws -> ChunkOutcome {
        let applied: AppliedChunk
        if let ahead = try await lookahead.take(for: chunk.checkpoint) {
            applied = ahead
        } else {
            applied = try await apply(chunk)
        }
        if appliesAhead, let upcoming {
            let keys = applied.keys
            lookahead.begin { [self] in
                guard let next = try await upcoming.value else { return nil }
                if insertsEveryRecord { return try await apply(next) }
                let nextKeys = keyTexts(of: next)
                guard keys.isDisjoint(with: nextKeys) else { return nil }
                return try await apply(next, keys: nextKeys)
            }
        }
        return try await applied.context.perform { try applied.save(companion: companion) }
    }

    /// `chunk` applied to a new background context, not saved; `keys` are its rows' key texts when already known.
    private func apply(_ chunk: Chunk, keys: [String]? = nil) async throws -> AppliedChunk {
        let destinations = try await resolveRelationships(chunk)
        let context = container.newBackgroundContext()
        context.mergePolicy = plan.spec.mergePolicy
        context.transactionAuthor = author
        context.name = "ferry import"
        let rowKeys = insertsEveryRecord ? nil : keys ?? keyTexts(of: chunk)
        let applied = AppliedChunk(
            ChunkApplication(
                plan: plan, chunk: chunk, context: context, store: container.persistentStore,
                destinations: destinations, rowKeys: rowKeys,
                keyValues: rowKeys == nil ? [] : ChunkApplication.decodedKeyValues(of: chunk, plan: plan)),
            keys: appliesAhead ? Set(rowKeys ?? []) : [])
        try await context.perform { try applied.apply() }
        return applied
    }

    /// The key text of each row of `chunk`, in row order (see ``ChunkApplication/keyText(row:of:plan:)``): made
    /// once per chunk, for the lookahead's check and for every pass over the chunk.
    private func keyTexts(of chunk: Chunk) -> [String] {
        (0..<chunk.rows.count).map { ChunkApplication.keyText(row: $0, of: chunk, plan: plan) }
    }

    /// Primary keys of every relationship key in the chunk (destinations to create are made in the context).
    private func resolveRelationships(_ chunk: Chunk) async throws -> [Int: [String: Int64]] {
        let resolver = RelationshipResolver(store: container.persistentStore)
        var resolved: [Int: [String: Int64]] = [:]
        for (index, column) in plan.columns.enumerated() {
            guard case .relationshipKey(_, let relationship) = column.source else { continue }
            let keys = Set(RelationshipResolver.rowKeys(in: chunk.rows, column: index).compactMap { $0 })
            resolved[index] = try await resolver.primaryKeys(for: keys, of: relationship)
        }
        return resolved
    }
}
