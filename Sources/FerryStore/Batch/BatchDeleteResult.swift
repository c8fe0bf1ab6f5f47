/// What a batch delete did (Core Data's `NSBatchDeleteResult`).
///
/// As in Core Data, ``result`` reports the objects the request named (matched by its fetch request, or listed by
/// ID) — not the objects its cascade rules deleted with them. Those are counted in ``cascadedCount`` and, for the
/// ``BatchDeleteRequest/ResultType/objectIDs`` result type, listed in ``cascadedObjectIDs``, so that contexts can
/// forget them too.
///
/// ```swift
/// let outcome = try await store.execute(BatchDeleteRequest(objectIDs: ids, resultType: .objectIDs))
/// let gone = (outcome.objectIDs ?? []) + outcome.cascadedObjectIDs
/// ```
public struct BatchDeleteResult: Sendable, Hashable {
    /// The value the request's result type asks for.
    public enum Result: Sendable, Hashable {
        /// For ``BatchDeleteRequest/ResultType/statusOnly``: always `true` (a failed request throws).
        case status(Bool)
        /// For ``BatchDeleteRequest/ResultType/count``: ``BatchDeleteResult/deletedCount``.
        case count(Int)
        /// For ``BatchDeleteRequest/ResultType/objectIDs``: the objects the request named, by primary key within
        /// each table.
        case objectIDs([ObjectID])
    }

    /// What the request's result type asks for.
    public var result: Result
    /// Objects the request named that were deleted.
    public var deletedCount: Int
    /// Objects deleted by cascade rules on top of those.
    public var cascadedCount: Int
    /// For the ``BatchDeleteRequest/ResultType/objectIDs`` result type, the objects deleted by cascade rules;
    /// otherwise empty.
    public var cascadedObjectIDs: [ObjectID]
    /// What the request changed, for ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``, whatever
    /// the result type: deleted, the objects named and those cascaded; updated, the objects whose relationship was
    /// nullified. Kept as runs of primary keys (16 bytes per run of consecutive keys, not an ``ObjectID`` per row).
    public var changes: RemoteChanges

    /// Creates a result.
    public init(
        result: Result, deletedCount: Int, cascadedCount: Int, cascadedObjectIDs: [ObjectID] = [],
        changes: RemoteChanges = RemoteChanges()
    ) {
        self.result = result
        self.deletedCount = deletedCount
        self.cascadedCount = cascadedCount
        self.cascadedObjectIDs = cascadedObjectIDs
        self.changes = changes
    }

    /// The object IDs, when the result type was ``BatchDeleteRequest/ResultType/objectIDs``; otherwise nil.
    public var objectIDs: [ObjectID]? {
        if case .objectIDs(let ids) = result { return ids }
        return nil
    }

    /// The count, when the result type was ``BatchDeleteRequest/ResultType/count``; otherwise nil.
    public var count: Int? {
        if case .count(let count) = result { return count }
        return nil
    }
}
