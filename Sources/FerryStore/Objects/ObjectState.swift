/// Where an object stands in its context.
enum ObjectLifecycle: Equatable {
    /// Saved (or fetched) and unchanged since.
    case clean
    /// Inserted, not saved yet.
    case inserted
    /// Saved, with persistent changes not saved yet.
    case updated
    /// Deleted, the deletion not saved yet.
    case deleted
    /// Out of its context: reset away, or its deletion saved, or discarded by a merge policy.
    case invalid
}

/// The values a save or fetch last left in the store for one object: what changes are measured against.
struct ObjectSnapshot {
    var attributes: [AttributeValue?]
    var toOne: [ObjectID?]
    /// The row's `_opt` when the snapshot was taken.
    var version: Int64
}

/// One object's values and bookkeeping, in its layout's slots.
struct ObjectState {
    var lifecycle: ObjectLifecycle = .clean
    var isFault = true
    var attributes: [AttributeValue?]
    var toOne: [ObjectID?]
    /// Each to-many's members; `nil` while the relationship is a fault (not loaded).
    var toMany: [[ObjectID]?]
    /// The committed values; `nil` for an object never saved.
    var committed: ObjectSnapshot?
    /// To-many slots changed since the last save.
    var changedToMany: Set<Int> = []
    /// For inserted objects: the order of insertion in the context (merge policies elect the first).
    var insertionIndex = 0
    /// The results of the fetched properties read so far, by name; `nil` until one is read. A new state (the object
    /// refreshed or turned into a fault) starts without them, so they are fetched again.
    var fetchedProperties: [String: [ObjectID]]?
    /// The attribute values before the first change of the current event (see
    /// ``ManagedObject/changedValuesForCurrentEvent()``), for a saved object changed since its last save.
    var eventBaseline: EventBaseline?

    /// The state of a fault: nothing loaded.
    init(layout: EntityLayout) {
        attributes = layout.nilValues
        toOne = Array(repeating: nil, count: layout.toOne.count)
        toMany = Array(repeating: nil, count: layout.toMany.count)
    }

    /// The state of an object just inserted: the model's defaults, empty relationships.
    init(inserting layout: EntityLayout, insertionIndex: Int) {
        lifecycle = .inserted
        isFault = false
        attributes = layout.defaultValues
        toOne = Array(repeating: nil, count: layout.toOne.count)
        toMany = Array(repeating: [], count: layout.toMany.count)
        self.insertionIndex = insertionIndex
    }

    /// Whether the attribute in `slot` differs from its committed value (always, for a never-saved object).
    func attributeChanged(_ slot: Int) -> Bool {
        guard let committed else { return attributes[slot] != nil }
        return committed.attributes[slot] != attributes[slot]
    }

    /// Whether the to-one in `slot` differs from its committed value.
    func toOneChanged(_ slot: Int) -> Bool {
        guard let committed else { return toOne[slot] != nil }
        return committed.toOne[slot] != toOne[slot]
    }

    /// Whether any persistent value differs from the committed ones.
    func hasPersistentChanges(_ layout: EntityLayout) -> Bool {
        guard committed != nil else { return true }
        return layout.writableAttributeSlots.contains(where: attributeChanged)
            || layout.toOne.indices.contains(where: toOneChanged) || !changedToMany.isEmpty
    }

    /// Makes the current values the committed ones, at `version`.
    mutating func commit(version: Int64) {
        committed = ObjectSnapshot(attributes: attributes, toOne: toOne, version: version)
        changedToMany = []
        lifecycle = .clean
        eventBaseline = nil
    }
}

/// An object's attribute values as they were when the event numbered ``event`` first changed one.
struct EventBaseline {
    var event: Int
    var attributes: [AttributeValue?]
}
