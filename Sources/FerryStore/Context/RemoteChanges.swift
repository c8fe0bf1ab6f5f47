/// Changes made to the store outside a context — by a batch request, another container or another process — to
/// apply to live contexts with ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``: the dictionary of
/// inserted, updated and deleted object IDs that Core Data's class method takes, as ``ObjectIDSet``s.
///
/// Every batch request's result carries one (``BatchUpdateResult/changes``, ``BatchDeleteResult/changes``,
/// ``BatchInsertResult/changes``), whatever its result type, built from the keys its SQL returned without making an
/// ``ObjectID`` per row:
///
/// ```swift
/// let result = try await store.execute(BatchUpdateRequest(entityName: "Product", propertiesToUpdate: changes))
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [viewContext])
///
/// // IDs from elsewhere, as in Core Data:
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: RemoteChanges(updated: ids), into: [viewContext])
/// ```
///
/// Why not ``ContextDidSave``: its arrays hold one ``ObjectID`` per object, which for a batch request over a
/// million rows costs more to build than the merge may; `RemoteChanges(notification)` converts one.
public struct RemoteChanges: Sendable, Hashable {
    /// Objects inserted. Merging refreshes the registered ones (there are usually none) and faults nothing in.
    public var insertedObjectIDs: ObjectIDSet
    /// Objects whose stored values changed: updated by a batch update or an upsert, or whose relationship a batch
    /// delete nullified.
    public var updatedObjectIDs: ObjectIDSet
    /// Objects deleted, including those deleted by cascade rules.
    public var deletedObjectIDs: ObjectIDSet
    /// The author the change was recorded under (a batch request's `transactionAuthor`), so observers can skip
    /// their own.
    public var transactionAuthor: String?

    /// Changes given as sets.
    public init(
        inserted: ObjectIDSet, updated: ObjectIDSet, deleted: ObjectIDSet, transactionAuthor: String? = nil
    ) {
        self.insertedObjectIDs = inserted
        self.updatedObjectIDs = updated
        self.deletedObjectIDs = deleted
        self.transactionAuthor = transactionAuthor
    }

    /// Changes given as object IDs (temporary IDs are left out), as Core Data's dictionary gives them; no changes
    /// when called without arguments.
    public init(inserted: [ObjectID] = [], updated: [ObjectID] = [], deleted: [ObjectID] = []) {
        self.init(inserted: ObjectIDSet(inserted), updated: ObjectIDSet(updated), deleted: ObjectIDSet(deleted))
    }

    /// The changes of a context's save (or of a history transaction's ``HistoryTransaction/objectIDNotification()``).
    public init(_ notification: ContextDidSave) {
        self.init(
            inserted: notification.insertedObjectIDs, updated: notification.updatedObjectIDs,
            deleted: notification.deletedObjectIDs)
        transactionAuthor = notification.transactionAuthor
    }

    /// Whether nothing changed.
    public var isEmpty: Bool {
        insertedObjectIDs.isEmpty && updatedObjectIDs.isEmpty && deletedObjectIDs.isEmpty
    }
}
