/// What a batch update did (Core Data's `NSBatchUpdateResult`).
///
/// ``result`` holds what the request's ``BatchUpdateRequest/resultType`` asked for; ``updatedCount`` is always
/// filled in.
public struct BatchUpdateResult: Sendable, Hashable {
    /// The value the request's result type asks for.
    public enum Result: Sendable, Hashable {
        /// For ``BatchUpdateRequest/ResultType/statusOnly``: always `true` (a failed request throws).
        case status(Bool)
        /// For ``BatchUpdateRequest/ResultType/updatedObjectsCount``.
        case count(Int)
        /// For ``BatchUpdateRequest/ResultType/updatedObjectIDs``: each updated object once, by primary key
        /// within its table.
        case objectIDs([ObjectID])
    }

    /// What the request's result type asks for.
    public var result: Result
    /// How many objects were updated.
    public var updatedCount: Int
    /// What the request changed (its ``RemoteChanges/updatedObjectIDs``), for
    /// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``, whatever the result type. Kept as runs of
    /// primary keys (16 bytes per run of consecutive keys, not an ``ObjectID`` per row).
    public var changes: RemoteChanges

    /// Creates a result.
    public init(result: Result, updatedCount: Int, changes: RemoteChanges = RemoteChanges()) {
        self.result = result
        self.updatedCount = updatedCount
        self.changes = changes
    }

    /// The object IDs, when the result type was ``BatchUpdateRequest/ResultType/updatedObjectIDs``; otherwise nil.
    public var objectIDs: [ObjectID]? {
        if case .objectIDs(let ids) = result { return ids }
        return nil
    }
}
