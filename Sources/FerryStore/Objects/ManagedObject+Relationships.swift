extension ManagedObject {
    /// The object a to-one relationship points at (a fault until its values are read), or `nil`.
    public func object(forKey key: String) -> ManagedObject? {
        objectID(forKey: key).map { context.object(with: $0) }
    }

    /// The ID of the object a to-one relationship points at, without loading that object.
    public func objectID(forKey key: String) -> ObjectID? {
        willAccessValues()
        return state.toOne[toOneSlot(key)]
    }

    /// Points a to-one relationship at `object` (or clears it), keeping the inverse relationship consistent on
    /// both the old and the new destination.
    public func setObject(_ object: ManagedObject?, forKey key: String) {
        context.setToOne(of: self, slot: toOneSlot(key), to: object)
    }

    /// The members of a to-many relationship, in order for an ordered one (loaded from the store the first time).
    public func objects(forKey key: String) -> [ManagedObject] {
        objectIDs(forKey: key).map { context.object(with: $0) }
    }

    /// The IDs of a to-many relationship's members, without loading the members.
    public func objectIDs(forKey key: String) -> [ObjectID] {
        willAccessValues()
        return context.members(of: self, toManySlot: toManySlot(key))
    }

    /// Adds `object` to a to-many relationship (at the end of an ordered one), and this object to the inverse.
    public func add(_ object: ManagedObject, toKey key: String) {
        context.addMember(object, to: self, toManySlot: toManySlot(key))
    }

    /// Removes `object` from a to-many relationship, and this object from the inverse.
    public func remove(_ object: ManagedObject, fromKey key: String) {
        context.removeMember(object, from: self, toManySlot: toManySlot(key))
    }

    /// Replaces a to-many relationship's members with `objects` (in this order, for an ordered one).
    public func setObjects(_ objects: [ManagedObject], forKey key: String) {
        let slot = toManySlot(key)
        let wanted = Set(objects.map(\.objectID))
        for current in self.objects(forKey: key) where !wanted.contains(current.objectID) {
            context.removeMember(current, from: self, toManySlot: slot)
        }
        for object in objects { context.addMember(object, to: self, toManySlot: slot) }
        if layout.toMany[slot].isOrdered {
            context.reorderMembers(of: self, toManySlot: slot, as: objects.map(\.objectID))
        }
    }

    /// Whether a to-many relationship has not been loaded yet (Core Data's `hasFault(forRelationshipNamed:)`).
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        state.isFault || state.toMany[toManySlot(key)] == nil
    }

    func toOneSlot(_ key: String) -> Int {
        guard case .toOne(let slot) = layout.slot(of: key) else {
            preconditionFailure("'\(key)' of \(layout.name) is not a to-one relationship")
        }
        return slot
    }

    func toManySlot(_ key: String) -> Int {
        guard case .toMany(let slot) = layout.slot(of: key) else {
            preconditionFailure("'\(key)' of \(layout.name) is not a to-many relationship")
        }
        return slot
    }
}
