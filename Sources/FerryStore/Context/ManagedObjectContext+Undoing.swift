/// Undoing a context's unsaved changes and refreshing its objects from the store.
extension ManagedObjectContext {
    /// Throws away every unsaved change: inserted objects leave the context, updated and deleted ones get their
    /// saved values back (Core Data's `rollback()`).
    public func rollback() {
        assertOnQueue()
        for object in pending.values {
            if object.state.committed == nil {
                invalidate(object)
            } else {
                revertToCommitted(object)
            }
        }
        pending = [:]
        joinChanges = []
        unpropagatedDeletions = []
    }

    /// Forgets every registered object and every unsaved change (Core Data's `reset()`). Objects kept by the caller
    /// must not be used afterwards. Importers reset after each chunk to keep memory flat.
    public func reset() {
        assertOnQueue()
        for entry in registered.values { invalidate(entry.takeUnretainedValue(), unregistering: false) }
        registered = [:]
        if retainedObjects != nil { retainedObjects = [:] }
        pending = [:]
        rowCache = [:]
        rowCacheTimes = [:]
        joinChanges = []
        unpropagatedDeletions = []
        recordReset()
        postEventChanges()
        advancePinnedGeneration()
    }

    /// Reloads `object` from the store (Core Data's `refresh(_:mergeChanges:)`). With `mergeChanges: false` it
    /// becomes a fault and its unsaved changes are lost; with `true` the saved values are reloaded and its unsaved
    /// changes applied on top.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        assertOnQueue()
        guard object.state.lifecycle != .invalid, object.state.lifecycle != .inserted else { return }
        let changedAttributes =
            object.state.isFault
            ? []
            : object.layout.writableAttributeSlots.filter {
                object.state.attributeChanged($0)
            }
        let changedToOne =
            object.state.isFault
            ? []
            : object.layout.toOne.indices.filter {
                object.state.toOneChanged($0)
            }
        let keepsChanges = mergeChanges && object.state.lifecycle == .updated
        let attributes = object.state.attributes
        let toOne = object.state.toOne
        let transients = object.layout.attributes.indices.filter { object.layout.attributes[$0].isTransient }
        turnIntoFault(object)
        guard keepsChanges, (try? loadValues(of: object)) == true else { return }
        for slot in changedAttributes { object.state.attributes[slot] = attributes[slot] }
        for slot in changedToOne { object.state.toOne[slot] = toOne[slot] }
        for slot in transients { object.state.attributes[slot] = attributes[slot] }
        if object.state.hasPersistentChanges(object.layout) {
            object.state.lifecycle = .updated
            pending[object.objectID] = object
        }
    }

    /// Refreshes every registered object, keeping unsaved changes (Core Data's `refreshAllObjects()`).
    public func refreshAllObjects() {
        for object in registeredObjects { refresh(object, mergeChanges: true) }
    }

    /// Gives `object` its saved values back and makes it clean.
    private func revertToCommitted(_ object: ManagedObject) {
        guard let committed = object.state.committed else { return }
        object.state.attributes = committed.attributes
        object.state.toOne = committed.toOne
        object.state.toMany = Array(repeating: nil, count: object.layout.toMany.count)
        object.state.changedToMany = []
        object.state.lifecycle = .clean
    }
}
