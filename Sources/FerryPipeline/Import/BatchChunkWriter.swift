import FerryIO
import FerryStore

/// Commits each chunk as one direct-to-store batch insert (an upsert under object-trump), with its checkpoint in
/// the same transaction. Natural keys of relationships are resolved first; destinations the mapping creates are
/// inserted just before, in a transaction enclosing the chunk's, so they commit with it or not at all. Rows arrive
/// in key order unless the table's indexes are deferred (``ChunkProducer`` sorts them).
struct BatchChunkWriter: ChunkWriter {
    let store: PersistentStore
    let plan: ImportPlan
    let author: String
    /// A batch insert runs in one statement loop: there is nothing to start before it.
    var looksAhead: Bool { false }
    /// Each row is written on its own (relationship keys are resolved for the whole chunk before).
    var takesRowsInKeyOrder: Bool { true }

    func commit(
        _ chunk: Chunk, upcoming _: Task<Chunk?, any Error>?,
        companion: @escaping @Sendable (_ outcome: ChunkOutcome) -> TransactionCompanion
    ) async throws -> ChunkOutcome {
        guard plan.createsDestinations else { return try await write(chunk, companion: companion) }
        return try await store.withEnclosingTransaction { try await write(chunk, companion: companion) }
    }

    /// Resolves the chunk's relationships (creating destinations) and inserts its rows with `companion`.
    private func write(
        _ chunk: Chunk, companion: @escaping @Sendable (_ outcome: ChunkOutcome) -> TransactionCompanion
    ) async throws -> ChunkOutcome {
        var chunk = chunk
        let (lateRejects, links) = try await resolveRelationships(&chunk)
        let allRejects = chunk.rejects + lateRejects
        guard !chunk.rows.isEmpty else {
            let outcome = Self.outcome(read: chunk.read, rows: 0, rejects: allRejects, result: nil, links: links)
            try await store.commit(companion(outcome))
            return outcome
        }
        var request = BatchInsertRequest(entityName: plan.entity.name, packedRows: chunk.rows, resultType: .count)
        request.transactionAuthor = author
        request.refusesIncompleteNewRows = true
        request.countsKeptRows = true
        // The rows the insert refuses and the rows it writes are known only inside its transaction; the companion
        // records them there.
        let written = chunk
        request.companion = { connection, result in
            let late = Self.rejects(result.refusedRows, of: written)
            try companion(
                Self.outcome(
                    read: written.read, rows: written.rows.count, rejects: allRejects + late, result: result,
                    links: links))(connection)
        }
        let result: BatchInsertResult
        do {
            result = try await store.execute(request, mergePolicy: plan.spec.mergePolicy)
        } catch let error as StoreError where error.code == .constraintConflict {
            throw PipelineError(
                .conflict,
                "\(chunk.inputPath), records \(chunk.checkpoint.records - chunk.read + 1)–\(chunk.checkpoint.records): "
                    + error.message)
        }
        let late = Self.rejects(result.refusedRows, of: chunk)
        return Self.outcome(
            read: chunk.read, rows: chunk.rows.count, rejects: allRejects + late, result: result, links: links)
    }

    /// What a chunk of `read` records did: `rows` of them went to the insert (which `result` reports), the
    /// others, and the rows it refused, are among `rejects`; `links` holds what resolving relationships did
    /// (destinations created, relationships left empty).
    private static func outcome(
        read: Int, rows: Int, rejects: [RejectedRecord], result: BatchInsertResult?, links: StepCounts
    ) -> ChunkOutcome {
        // Refused at different stages, the rejects are listed in record order, as the ledger and the rejects file
        // list them.
        var outcome = ChunkOutcome(rejects: rejects.sorted { $0.position.record < $1.position.record })
        outcome.counts.read = read
        outcome.counts.rejected = rejects.count
        outcome.counts.created = links.created
        outcome.counts.leftEmpty = links.leftEmpty
        guard let result else { return outcome }
        outcome.counts.inserted = result.insertedCount
        outcome.counts.updated = result.updatedCount
        outcome.counts.kept = result.keptCount
        outcome.counts.unchanged =
            rows - result.insertedCount - result.updatedCount - result.keptCount - result.refusedRows.count
        return outcome
    }

    /// The rows of `chunk` the insert refused, as rejects.
    private static func rejects(_ refused: [RefusedRow], of chunk: Chunk) -> [RejectedRecord] {
        refused.map { refusal in
            RejectedRecord(
                file: chunk.inputPath, position: chunk.position(of: refusal.row), reason: refusal.reason,
                fieldsJSON: chunk.fieldsJSON(of: refusal.row))
        }
    }

    /// Fills the relationship columns with primary keys; rows whose key has no destination are taken out of the
    /// chunk and returned as rejects (`onMissing: reject`), or get an empty relationship (`null`), or the
    /// destination is created (`create`). Also returns the destinations created and the rows left with an empty
    /// relationship (among those kept in the chunk).
    private func resolveRelationships(_ chunk: inout Chunk) async throws -> ([RejectedRecord], StepCounts) {
        let resolver = RelationshipResolver(store: store)
        var refused: [Int: String] = [:]
        var emptied: Set<Int> = []
        var links = StepCounts()
        for (index, column) in plan.columns.enumerated() {
            guard case .relationshipKey(let source, let relationship) = column.source else { continue }
            let rowKeys = RelationshipResolver.rowKeys(in: chunk.rows, column: index)
            let keys = Set(rowKeys.compactMap { $0 })
            var found = try await resolver.primaryKeys(for: keys, of: relationship)
            let missing = keys.subtracting(found.keys)
            if !missing.isEmpty && relationship.onMissing == .create {
                var create = BatchInsertRequest(
                    entityName: relationship.destinationEntity,
                    objects: missing.sorted().map { [relationship.keyAttribute: .string($0)] }, resultType: .count)
                create.transactionAuthor = author
                let made = try await store.execute(create, mergePolicy: .mergeByPropertyStoreTrump)
                if made.insertedCount > 0 {
                    links.created[relationship.destinationEntity, default: 0] += made.insertedCount
                }
                found.merge(try await resolver.primaryKeys(for: missing, of: relationship)) { $1 }
            }
            for (row, key) in rowKeys.enumerated() {
                guard let key else { continue }
                if let primaryKey = found[key] {
                    chunk.rows.replaceCell(row: row, column: index, with: .integer(primaryKey))
                } else if relationship.onMissing == .null {
                    chunk.rows.replaceCell(row: row, column: index, with: .null)
                    emptied.insert(row)
                } else if refused[row] == nil {
                    refused[row] = relationship.missingReason(key: key, column: source)
                }
            }
        }
        links.leftEmpty = emptied.subtracting(refused.keys).count
        guard !refused.isEmpty else { return ([], links) }
        return (ChunkWriters.remove(refused, from: &chunk), links)
    }
}
