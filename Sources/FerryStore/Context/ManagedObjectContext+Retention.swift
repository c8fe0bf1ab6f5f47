extension ManagedObjectContext {
    /// Whether the context keeps strong references to every registered object (Core Data's
    /// `retainsRegisteredObjects`). `false` by default: objects without unsaved changes are held weakly and go away
    /// when the caller lets go of them, which keeps long imports flat. Turned on, every object registered so far
    /// and from then on stays until it is saved as deleted, the context is reset, or the setting is turned off
    /// (which lets go of them at once). Set it on the context's queue.
    public var retainsRegisteredObjects: Bool {
        get {
            assertOnQueue()
            return retainedObjects != nil
        }
        set {
            assertOnQueue()
            guard newValue != (retainedObjects != nil) else { return }
            guard newValue else {
                retainedObjects = nil
                return
            }
            var retained: [ObjectID: ManagedObject] = [:]
            retained.reserveCapacity(registered.count)
            for (id, object) in registered { retained[id] = object.takeUnretainedValue() }
            retainedObjects = retained
        }
    }
}
