/// What deleting an object does to the objects a relationship points at (Core Data's `NSDeleteRule`).
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
    /// Clear the inverse relationship of the related objects (the default).
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Refuse the delete while the relationship holds any object (validation error 1600).
    case deny
    /// Do nothing: the related objects keep pointing at the deleted one.
    case noAction
}
