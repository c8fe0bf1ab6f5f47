/// How a write resolves a collision with data already in the store (Core Data's `NSMergePolicyType`;
/// see <doc:CoreDataSemantics>).
///
/// Context saves use every case (see ``ManagedObjectContext/save()``). Batch inserts use a policy only for
/// uniqueness-constraint collisions; see ``PersistentStore/execute(_:mergePolicy:)`` for what each case does there:
///
/// | Policy | A row whose key is already stored | Two rows with one key in one request |
/// |---|---|---|
/// | ``error`` | the whole request fails, nothing is written | the request fails |
/// | ``mergeByPropertyStoreTrump`` | ignored; the stored row keeps its values | the first wins |
/// | ``mergeByPropertyObjectTrump`` | the stored row gets the request's attributes | the last wins |
/// | ``overwrite`` | unsupported by batch insert (throws) | - |
/// | ``rollback`` | as ``mergeByPropertyStoreTrump`` | the first wins |
///
/// The raw values are Core Data's.
public enum MergePolicy: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Do not resolve: a write that collides fails and reports the conflict (`NSErrorMergePolicy`). The default of
    /// every context, as in Core Data, so an importer that forgets to choose a policy fails on its first duplicate.
    case error = 0

    /// Merge property by property; where both sides changed, the store's (external) value wins
    /// (`NSMergeByPropertyStoreTrumpMergePolicy`). For a new object that collides with a stored row this means
    /// "keep what is stored": it is **not** an upsert.
    case mergeByPropertyStoreTrump = 1

    /// Merge property by property; where both sides changed, the in-memory (incoming) value wins
    /// (`NSMergeByPropertyObjectTrumpMergePolicy`). For a new object that collides with a stored row this is an
    /// upsert: the stored row keeps its primary key and takes the incoming values.
    case mergeByPropertyObjectTrump = 2

    /// The in-memory state is written over the store (`NSOverwriteMergePolicy`). For a new object that collides
    /// with a stored row, Core Data deletes the stored row and keeps the new object with a new primary key.
    case overwrite = 3

    /// The in-memory changes of conflicting objects are thrown away (`NSRollbackMergePolicy`). For a new object
    /// that collides with a stored row, the stored row survives unchanged and the new object is discarded.
    case rollback = 4

    /// The Swift name of the case, such as `mergeByPropertyObjectTrump`.
    public var description: String {
        switch self {
        case .error: "error"
        case .mergeByPropertyStoreTrump: "mergeByPropertyStoreTrump"
        case .mergeByPropertyObjectTrump: "mergeByPropertyObjectTrump"
        case .overwrite: "overwrite"
        case .rollback: "rollback"
        }
    }

    /// What a batch insert does with a row whose uniqueness-constraint key is already stored (or was written by an
    /// earlier row of the same request).
    enum BatchInsertConflictAction: Equatable {
        /// Plain `INSERT`: the collision fails the request.
        case fail
        /// `ON CONFLICT DO NOTHING`: the stored row wins.
        case ignore
        /// `ON CONFLICT(<key>) DO UPDATE SET <given columns>`: the incoming row wins, column by column.
        case update
        /// The policy has no batch-insert meaning in Ferry.
        case unsupported
    }

    /// How a batch insert resolves collisions under this policy.
    var batchInsertConflictAction: BatchInsertConflictAction {
        switch self {
        case .error: .fail
        case .mergeByPropertyStoreTrump, .rollback: .ignore
        case .mergeByPropertyObjectTrump: .update
        case .overwrite: .unsupported
        }
    }
}
