extension ManagedObject {
    /// Whether a persistent property differs from what was last fetched or saved (Core Data's
    /// `hasPersistentChangedValues`): true for an object inserted and not saved; false for an updated object whose
    /// changes were all set back, or that changed only transient attributes. Reading it does not fire a fault.
    public var hasPersistentChangedValues: Bool {
        guard !state.isFault, state.lifecycle != .invalid else { return false }
        if state.lifecycle == .inserted { return true }
        return state.hasPersistentChanges(layout)
    }

    /// The attributes changed since the context last processed its pending changes (Core Data's
    /// `changedValuesForCurrentEvent()`): each with the value it had then, by key. A context processes its pending
    /// changes at the end of every ``ManagedObjectContext/perform(_:)``, in ``ManagedObjectContext/save()`` and when
    /// ``ManagedObjectContext/processPendingChanges()`` is called, as Core Data ends an event; an attribute changed
    /// and set back within the event is left out.
    ///
    /// Only attributes are listed, as in ``changedValues()``. For an object inserted and not saved, every attribute
    /// with a value is listed with nil, whatever event set it (Ferry does not track events of unsaved objects, to
    /// keep inserts cheap).
    public func changedValuesForCurrentEvent() -> [String: AttributeValue?] {
        willAccessValues()
        var changes: [String: AttributeValue?] = [:]
        if state.lifecycle == .inserted {
            for slot in layout.writableAttributeSlots where state.attributes[slot] != nil {
                changes.updateValue(nil, forKey: layout.attributes[slot].name)
            }
            return changes
        }
        guard let baseline = state.eventBaseline, baseline.event == context.eventNumber else { return changes }
        for slot in layout.writableAttributeSlots where baseline.attributes[slot] != state.attributes[slot] {
            changes.updateValue(baseline.attributes[slot], forKey: layout.attributes[slot].name)
        }
        return changes
    }
}
