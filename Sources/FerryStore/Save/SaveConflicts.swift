/// An object updated (or deleted) in a context whose row changed in the store since the object was read: Core
/// Data's `NSMergeConflict`.
public struct OptimisticLockingConflict: Sendable, Hashable {
    /// The object in conflict.
    public var objectID: ObjectID
    /// The row version (`_opt`) the object's values were read at.
    public var oldVersion: Int64
    /// The row's version now; 0 when the row was deleted.
    public var newVersion: Int64
    /// The object's persistent values in memory, by attribute name.
    public var objectSnapshot: [String: AttributeValue?]
    /// The row's values in the store, by attribute name; `nil` when the row was deleted.
    public var persistedSnapshot: [String: AttributeValue?]?
}

/// Objects of one save that collide on a uniqueness constraint, with a stored row or with each other: Core Data's
/// `NSConstraintConflict`.
public struct ConstraintConflict: Sendable, Hashable {
    /// The entity that declares the constraint.
    public var entityName: String
    /// The constraint's attribute names.
    public var constraint: [String]
    /// The colliding key, by attribute name.
    public var constraintValues: [String: AttributeValue?]
    /// The stored row holding the key, for a conflict with the store; `nil` when objects of one save collide.
    public var databaseObjectID: ObjectID?
    /// The stored row's values, by attribute name; `nil` when objects of one save collide.
    public var databaseSnapshot: [String: AttributeValue?]?
    /// The objects of the save that hold the key: one for a conflict with the store, two or more otherwise.
    public var conflictingObjectIDs: [ObjectID]
}

/// A save that found conflicts its context's merge policy does not resolve (``MergePolicy/error``): nothing was
/// written and every change is still pending (Core Data's error 133020 or 133021).
///
/// ```swift
/// do { try context.save() } catch let error as SaveConflictError {
///     for conflict in error.constraintConflicts { print(conflict.entityName, conflict.constraint) }
/// }
/// ```
public struct SaveConflictError: Error, Sendable, CustomStringConvertible {
    /// Which kind of conflict the error reports first; the raw values are Core Data's codes.
    public enum Code: Int, Sendable {
        /// 133020 `NSManagedObjectMergeError`: optimistic-locking conflicts (maybe constraint conflicts too).
        case mergeConflict = 133020
        /// 133021 `NSManagedObjectConstraintMergeError`: uniqueness-constraint conflicts only.
        case constraintConflict = 133021
    }

    /// 133020 when there are locking conflicts, otherwise 133021.
    public var code: Code
    /// The locking conflicts (Core Data's `conflictList` for 133020).
    public var lockingConflicts: [OptimisticLockingConflict]
    /// The constraint conflicts (Core Data's `conflictList` for 133021).
    public var constraintConflicts: [ConstraintConflict]
    /// Which objects and constraints collide; never the key values, which may be row data.
    public var description: String

    init(lockingConflicts: [OptimisticLockingConflict], constraintConflicts: [ConstraintConflict]) {
        self.code = lockingConflicts.isEmpty ? .constraintConflict : .mergeConflict
        self.lockingConflicts = lockingConflicts
        self.constraintConflicts = constraintConflicts
        var parts: [String] = []
        for conflict in lockingConflicts {
            parts.append(
                conflict.newVersion == 0
                    ? "\(conflict.objectID) was deleted in the store"
                    : "\(conflict.objectID) changed in the store (version \(conflict.oldVersion) → "
                        + "\(conflict.newVersion))")
        }
        for conflict in constraintConflicts {
            let key = "\(conflict.entityName)(\(conflict.constraint.joined(separator: ", ")))"
            parts.append(
                conflict.databaseObjectID == nil
                    ? "\(conflict.conflictingObjectIDs.count) objects of this save share one \(key) key"
                    : "a new \(key) key is already stored")
        }
        description =
            "save failed with \(parts.count) conflict\(parts.count == 1 ? "" : "s") under the error merge policy "
            + "(nothing was written): " + parts.prefix(5).joined(separator: "; ")
            + (parts.count > 5 ? "; …" : "")
            + "; choose a merge policy such as mergeByPropertyStoreTrump to resolve them"
    }
}
