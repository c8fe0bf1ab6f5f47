/// What a batch insert did (Core Data's `NSBatchInsertResult`).
///
/// ``result`` holds what the request's ``BatchInsertRequest/resultType`` asked for; ``insertedCount`` and
/// ``updatedCount`` are always filled in, whatever the result type.
///
/// ```swift
/// let outcome = try await store.execute(request, mergePolicy: .mergeByPropertyObjectTrump)
/// print("\(outcome.insertedCount) new, \(outcome.updatedCount) updated")
/// ```
public struct BatchInsertResult: Sendable, Hashable {
    /// The value the request's result type asks for.
    public enum Result: Sendable, Hashable {
        /// For ``BatchInsertRequest/ResultType/statusOnly``: whether the request succeeded (always `true`: a
        /// failed request throws instead).
        case status(Bool)
        /// For ``BatchInsertRequest/ResultType/count``: ``BatchInsertResult/insertedCount`` plus
        /// ``BatchInsertResult/updatedCount``.
        case count(Int)
        /// For ``BatchInsertRequest/ResultType/objectIDs``: the IDs of the rows inserted or updated, each once,
        /// in the order the request first wrote them. Rows that were ignored (the stored row won) are not
        /// included.
        case objectIDs([ObjectID])
    }

    /// What the request's result type asks for.
    public var result: Result
    /// Rows inserted (new primary keys).
    public var insertedCount: Int
    /// Row updates made by an upsert (``MergePolicy/mergeByPropertyObjectTrump``): a stored row that took the
    /// request's values, or a row inserted earlier in the same request that a later duplicate updated. A row
    /// updated by three duplicates counts three times.
    public var updatedCount: Int
    /// What the request changed, for ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``, whatever
    /// the result type: inserted, the new rows; updated, the rows an upsert changed (a row inserted and then updated
    /// by a later duplicate of the same request is in both). Kept as runs of primary keys (16 bytes per run of
    /// consecutive keys, not an ``ObjectID`` per row).
    public var changes: RemoteChanges
    /// The packed rows skipped under `BatchInsertRequest.refusesIncompleteNewRows`, with why.
    package var refusedRows: [RefusedRow] = []
    /// Under `BatchInsertRequest.countsKeptRows`: the rows ignored (their key stored, under
    /// ``MergePolicy/mergeByPropertyStoreTrump`` or ``MergePolicy/rollback``) whose stored row holds different values
    /// in the attributes they give.
    package var keptCount = 0

    /// Creates a result.
    public init(
        result: Result, insertedCount: Int, updatedCount: Int, changes: RemoteChanges = RemoteChanges()
    ) {
        self.result = result
        self.insertedCount = insertedCount
        self.updatedCount = updatedCount
        self.changes = changes
    }

    /// The object IDs, when the result type was ``BatchInsertRequest/ResultType/objectIDs``; otherwise `nil`.
    public var objectIDs: [ObjectID]? {
        if case .objectIDs(let ids) = result { return ids }
        return nil
    }

    /// The row count, when the result type was ``BatchInsertRequest/ResultType/count``; otherwise `nil`.
    public var count: Int? {
        if case .count(let count) = result { return count }
        return nil
    }
}

/// A packed row a batch insert skipped instead of failing (see `BatchInsertRequest.refusesIncompleteNewRows`).
package struct RefusedRow: Sendable, Hashable {
    /// The row, from 0.
    package var row: Int
    /// Why, naming the attribute.
    package var reason: String
}
