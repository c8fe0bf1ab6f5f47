/// Merging changes made outside the contexts — batch requests, other containers, other processes — into live
/// contexts.
extension ManagedObjectContext {
    /// Applies `changes` to each of `contexts` (Core Data's class method `mergeChanges(fromRemoteContextSave:into:)`):
    ///
    /// - registered objects that were updated (or inserted) are reloaded, keeping their unsaved changes and transient
    ///   values on top, as ``refresh(_:mergeChanges:)`` with `true` does; their snapshot moves to the new row
    ///   version, so saving them later meets no optimistic-locking conflict. Registered faults are not loaded: they
    ///   only drop the row a fetch cached for them, and read fresh values when they fire. An object deleted in the
    ///   context and not saved stays deleted (only its snapshot moves on);
    /// - registered objects that were deleted leave the context (as after a saved deletion: their
    ///   ``ManagedObject/managedObjectContext`` becomes `nil`), and every deleted ID leaves the loaded to-many
    ///   relationships of the objects the context holds and its pending many-to-many changes;
    /// - objects not registered in a context are left alone: no fault is made and nothing is read.
    ///
    /// The cost follows what each context holds, not the size of `changes`: a lookup per registered object (see
    /// ``ObjectIDSet``), then one query per 500 objects to reload. Merging a batch update of a million rows into a
    /// context holding a thousand objects takes a few milliseconds.
    ///
    /// Each context merges on its own queue through ``performAndWait(_:)``, so this may be called from any thread
    /// (also from inside one of the contexts' `perform`), and it returns once every context merged. The contexts
    /// merge one after the other, each parent before its children: a child reloads through its parent's state, so
    /// list the parent too when it holds the objects. Merging makes nothing pending.
    ///
    /// ```swift
    /// let result = try await store.execute(BatchUpdateRequest(entityName: "Product", propertiesToUpdate: changes))
    /// ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [viewContext, editor])
    /// ```
    public static func mergeChanges(
        fromRemoteContextSave changes: RemoteChanges, into contexts: [ManagedObjectContext]
    ) {
        guard !changes.isEmpty else { return }
        for context in inMergeOrder(contexts) {
            context.performAndWait { context.mergeRemoteChanges(changes) }
        }
    }

    /// `contexts` without repeats, shallower ones first and otherwise in the order given, so each parent comes before
    /// its children.
    static func inMergeOrder(_ contexts: [ManagedObjectContext]) -> [ManagedObjectContext] {
        var seen: Set<ObjectIdentifier> = []
        return contexts.filter { seen.insert(ObjectIdentifier($0)).inserted }
            .enumerated()
            .map { (depth: $1.nestingDepth, position: $0, context: $1) }
            .sorted { ($0.depth, $0.position) < ($1.depth, $1.position) }
            .map(\.context)
    }

    /// How many ancestors the context has: 0 for a root context.
    private var nestingDepth: Int {
        var depth = 0
        var ancestor = parent
        while let next = ancestor {
            depth += 1
            ancestor = next.parent
        }
        return depth
    }

    /// Applies `changes` to this context, on its queue (see ``mergeChanges(fromRemoteContextSave:into:)``).
    func mergeRemoteChanges(_ changes: RemoteChanges) {
        assertOnQueue()
        guard !changes.isEmpty, !registered.isEmpty else { return }
        let deletedIDs = changes.deletedObjectIDs
        var deleted: [ManagedObject] = []
        var stale: [ManagedObject] = []
        for entry in registered.values {
            let object = entry.takeUnretainedValue()
            let id = object.objectID
            guard !id.isTemporaryID, object.state.lifecycle != .inserted else { continue }
            if deletedIDs.contains(id) {
                deleted.append(object)
            } else if changes.updatedObjectIDs.contains(id) || changes.insertedObjectIDs.contains(id) {
                if object.state.isFault { dropCachedRow(id) } else { stale.append(object) }
            }
        }
        if !deletedIDs.isEmpty { forget(deleted, deletedIDs) }
        if !stale.isEmpty { reload(stale) }
    }

    // MARK: Deletions

    /// Takes `deleted` out of the context, and every ID of `deletedIDs` out of the loaded to-many relationships and
    /// the pending many-to-many changes.
    private func forget(_ deleted: [ManagedObject], _ deletedIDs: ObjectIDSet) {
        for object in deleted { invalidate(object) }
        joinChanges.removeAll { deletedIDs.contains($0.source) || deletedIDs.contains($0.destination) }
        for entry in registered.values {
            let object = entry.takeUnretainedValue()
            guard !object.state.isFault else { continue }
            for slot in object.state.toMany.indices where object.state.toMany[slot] != nil {
                object.state.toMany[slot]?.removeAll { deletedIDs.contains($0) }
            }
        }
    }

    // MARK: Updates

    /// The saved values an object reloads: a row of the store, or — in a child context — its parent's state.
    private enum FreshValues {
        case row(StoredRow)
        case parentState(ObjectState)

        var snapshot: ObjectSnapshot {
            switch self {
            case .row(let row):
                ObjectSnapshot(attributes: row.attributes, toOne: row.toOne, version: row.version)
            case .parentState(let state):
                ObjectSnapshot(
                    attributes: state.attributes, toOne: state.toOne, version: state.committed?.version ?? 0)
            }
        }
    }

    /// Reloads loaded objects whose rows changed, reading their rows in bulk and re-applying their unsaved changes.
    private func reload(_ objects: [ManagedObject]) {
        guard let fresh = freshValues(of: objects.map(\.objectID)) else {
            // The bulk read failed: refresh one by one, which keeps unsaved changes whatever happens.
            for object in objects where object.state.lifecycle != .deleted { refresh(object, mergeChanges: true) }
            return
        }
        for object in objects { merge(fresh[object.objectID], into: object) }
    }

    /// The fresh saved values of `ids`: from the parent's state where the parent holds the object loaded (one call
    /// into the parent for all), otherwise from the store (one query per 500 objects of an entity). A row that no
    /// longer exists has no entry; `nil` when reading the store failed.
    private func freshValues(of ids: [ObjectID]) -> [ObjectID: FreshValues]? {
        var fresh: [ObjectID: FreshValues] = [:]
        var fromStore = ids
        if let parent {
            let states = parent.performAndWait { ids.map { parent.stateForChild($0) } }
            fromStore = []
            for (id, state) in zip(ids, states) {
                if let state { fresh[id] = .parentState(state) } else { fromStore.append(id) }
            }
        }
        var keys: [ObjectIDName: [Int64]] = [:]
        for id in fromStore { keys[id.entity, default: []].append(id.primaryKey) }
        for (entity, entityKeys) in keys {
            guard let rows = try? readRows(entityKeys, of: layout(of: entity)) else { return nil }
            for row in rows { fresh[row.objectID] = .row(row) }
        }
        return fresh
    }

    /// Gives `object` its `fresh` saved values with its unsaved changes on top. A deleted object stays deleted, with
    /// a fresh snapshot; an object whose row is gone becomes a fault (its unsaved changes are lost, as with
    /// ``refresh(_:mergeChanges:)``).
    private func merge(_ fresh: FreshValues?, into object: ManagedObject) {
        if object.state.lifecycle == .deleted {
            if let fresh { object.state.committed = fresh.snapshot }
            return
        }
        let local = LocalChanges(of: object)
        turnIntoFault(object)
        guard let fresh else { return }
        switch fresh {
        case .row(let row): apply(row, to: object)
        case .parentState(let state): adopt(state, to: object)
        }
        local.reapply(to: object)
        if object.state.hasPersistentChanges(object.layout) {
            object.state.lifecycle = .updated
            pending[object.objectID] = object
        }
    }
}

/// What of an object survives a merge's reload: its unsaved attribute, to-one and changed to-many values, and its
/// transient values.
private struct LocalChanges {
    private var attributes: [(slot: Int, value: AttributeValue?)] = []
    private var toOne: [(slot: Int, value: ObjectID?)] = []
    private var toMany: [(slot: Int, members: [ObjectID])] = []

    init(of object: ManagedObject) {
        let state = object.state
        let layout = object.layout
        for slot in layout.writableAttributeSlots where state.attributeChanged(slot) {
            attributes.append((slot, state.attributes[slot]))
        }
        for slot in layout.attributes.indices where layout.attributes[slot].isTransient {
            attributes.append((slot, state.attributes[slot]))
        }
        for slot in layout.toOne.indices where state.toOneChanged(slot) { toOne.append((slot, state.toOne[slot])) }
        for slot in state.changedToMany.sorted() {
            if let members = state.toMany[slot] { toMany.append((slot, members)) }
        }
    }

    func reapply(to object: ManagedObject) {
        for (slot, value) in attributes { object.state.attributes[slot] = value }
        for (slot, value) in toOne { object.state.toOne[slot] = value }
        for (slot, members) in toMany {
            object.state.toMany[slot] = members
            object.state.changedToMany.insert(slot)
        }
    }
}
