/// A merge policy of one's own, beside the five built-in ones (Core Data's `NSMergePolicy` subclass): it decides
/// each conflict of a save, by choosing a built-in policy for it or, for a locking conflict, the values to write.
///
/// Set it as the context's ``ManagedObjectContext/customMergePolicy``; it then takes over from
/// ``ManagedObjectContext/mergePolicy``. It runs inside the save's write transaction, on the store's writer, so it
/// must be quick and must not use contexts.
///
/// ```swift
/// struct KeepHighestStock: CustomMergePolicy {
///     func resolve(_ conflict: OptimisticLockingConflict) -> LockingConflictResolution {
///         let mine = conflict.objectSnapshot["stock"].flatMap { $0 }
///         let theirs = conflict.persistedSnapshot?["stock"].flatMap { $0 }
///         guard case .integer(let a)? = mine, case .integer(let b)? = theirs else {
///             return .policy(.mergeByPropertyObjectTrump)
///         }
///         return .values(["stock": .integer(max(a, b))])
///     }
///     func resolve(_ conflict: ConstraintConflict) -> MergePolicy {
///         conflict.entityName == "Product" ? .mergeByPropertyObjectTrump : .mergeByPropertyStoreTrump
///     }
/// }
/// context.customMergePolicy = KeepHighestStock()
/// ```
///
/// As with Core Data's generic entry point, the locking conflicts are resolved first, then the constraint
/// conflicts. A conflict resolved with ``MergePolicy/error`` fails the save with ``SaveConflictError`` listing
/// every conflict so resolved, and nothing is written.
public protocol CustomMergePolicy: Sendable {
    /// How to resolve an object changed in memory whose row changed (or was deleted) in the store since it was read.
    func resolve(_ conflict: OptimisticLockingConflict) -> LockingConflictResolution
    /// Which built-in policy resolves objects that collide on a uniqueness constraint.
    func resolve(_ conflict: ConstraintConflict) -> MergePolicy
}

/// What a ``CustomMergePolicy`` does with one optimistic-locking conflict.
public enum LockingConflictResolution: Sendable, Hashable {
    /// Resolve it as the built-in `policy` would.
    case policy(MergePolicy)
    /// Write the object's changes and these attribute values (by name) over the stored row: the in-memory values
    /// win (as ``MergePolicy/mergeByPropertyObjectTrump``), and these win over both. After the save the object
    /// reads what was written. For a row deleted in the store it fails as ``MergePolicy/error`` does. Each name must
    /// be a non-derived, non-transient attribute of the object's entity; anything else traps.
    case values([String: AttributeValue?])
}
