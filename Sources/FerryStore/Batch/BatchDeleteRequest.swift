/// Objects to delete straight from the store in one transaction, without managed objects, validation or callbacks
/// (Core Data's `NSBatchDeleteRequest`): those a fetch request matches, or a list of object IDs.
///
/// ```swift
/// var stale = FetchRequest(entityName: "Order")
/// stale.predicate = try FetchPredicate(format: "placedAt < %@", cutoff)
/// let result = try await store.execute(BatchDeleteRequest(fetchRequest: stale, resultType: .objectIDs))
///
/// try await store.execute(BatchDeleteRequest(objectIDs: [id1, id2]))
/// ```
///
/// The delete rules of the model apply, in SQL (see `BatchDeleter` for the order of the steps):
/// cascade deletes related objects (recursively), nullify clears the related objects' foreign keys, deny refuses
/// the whole request while a relationship it guards holds an object, and no-action leaves related objects as they
/// are. Join-table rows of a deleted object always go with it.
public struct BatchDeleteRequest: Sendable, Hashable {
    /// What the result reports (Core Data's `NSBatchDeleteRequestResultType`, with its raw values).
    public enum ResultType: Int, Sendable, Hashable {
        /// Whether the request succeeded (Core Data's default).
        case statusOnly = 0
        /// The IDs of the objects deleted.
        case objectIDs = 1
        /// How many objects were deleted.
        case count = 2
    }

    /// Which objects the request deletes.
    public enum Source: Sendable, Hashable {
        /// The objects the fetch request matches: its entity, predicate and `includesSubentities`, and its sort
        /// descriptors, limit and offset when it has a limit or offset. Its result type is ignored.
        case fetchRequest(FetchRequest)
        /// These objects, all of this store and of one entity hierarchy (Core Data asks for one entity). IDs
        /// whose rows are already gone are skipped.
        case objectIDs([ObjectID])
    }

    /// Which objects the request deletes.
    public var source: Source
    /// What the result reports.
    public var resultType: ResultType
    /// Recorded as the author of the request's persistent-history transaction, when the store records history
    /// (``PersistentStoreDescription/recordsHistory``); Core Data takes the executing context's `transactionAuthor`.
    public var transactionAuthor: String? = nil

    /// A request deleting the objects `fetchRequest` matches.
    public init(fetchRequest: FetchRequest, resultType: ResultType = .statusOnly) {
        self.source = .fetchRequest(fetchRequest)
        self.resultType = resultType
    }

    /// A request deleting the objects `objectIDs` name.
    public init(objectIDs: [ObjectID], resultType: ResultType = .statusOnly) {
        self.source = .objectIDs(objectIDs)
        self.resultType = resultType
    }
}
