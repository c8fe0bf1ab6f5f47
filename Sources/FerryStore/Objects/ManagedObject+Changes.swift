extension ManagedObject {
    /// Whether a persistent property differs from what was last fetched or saved (Core Data's
    /// `hasPersistentChangedValues`): true for an object inserted and not saved; false for an updated object whose
    /// changes were all set back, or that changed only transient attributes. Reading it does not fire a fault.
    public var hasPersistentChangedValues: Bool {
        guard !state.isFault, state.lifecycle != .invalid else { return false }
        if state.lifecycle == .inserted { return true }
        return state.hasPersistentChanges(layout)
    }
}
