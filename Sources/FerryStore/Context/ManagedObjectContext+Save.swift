import FerrySQLite

extension ManagedObjectContext {
    /// Saves the pending changes: to the store for a root context, into the parent for a child (Core Data's
    /// `save()`). A context without changes does nothing.
    ///
    /// In order, as Core Data: delete rules and `prepareForDeletion()`, `willSave()` on each object,
    /// validation gathering every failure, then — for a root context, in one write transaction — the
    /// optimistic-locking check on `_opt`, the uniqueness check against the store and among the save's own objects,
    /// resolution by ``mergePolicy``, and the SQL. Then `didSave()` on each object and a ``ContextDidSave``
    /// notification. A save that throws has written nothing and leaves every change pending.
    ///
    /// - Throws: ``ValidationError``; ``SaveConflictError`` for conflicts the merge policy does not resolve;
    ///   ``StoreError`` when SQLite fails.
    public func save() throws {
        try save(committingWith: nil)
    }

    /// Saves as ``save()`` does, running `companion` in the save's transaction (for a root context). Without
    /// changes, `companion` still runs, in a transaction of its own.
    ///
    /// - Throws: as ``save()``; whatever `companion` throws, with nothing written.
    package func save(committingWith companion: TransactionCompanion?) throws {
        assertOnQueue()
        precondition(companion == nil || parent == nil, "a transaction companion needs a context saving to the store")
        processPendingChanges()
        guard hasChanges else {
            if let companion {
                try storeAccess("committing", writing: true) { connection in
                    try connection.transaction(.immediate) { try companion(connection) }
                }
            }
            return
        }
        postWillSave()
        for object in pending.values where object.state.lifecycle != .invalid { object.willSave() }
        processPendingChanges()
        let objects = Self.inSaveOrder(pending.values)
        try validatePendingObjects(objects)
        if let parent {
            try push(objects, into: parent)
            return
        }
        let plan = makePlan(objects)
        let outcome = try writeToStore(plan, companion: companion)
        // A pinned context moves to the store its save made, before it reloads the objects the save refreshed.
        advancePinnedGeneration()
        finishSave(objects, outcome)
    }

    /// Gives the inserted objects among `objects` their permanent IDs now, reserving primary keys in the store
    /// (Core Data's `obtainPermanentIDs(for:)`); their rows are written by a later save. Keys reserved and never
    /// saved leave gaps.
    ///
    /// - Throws: ``StoreError`` when SQLite fails.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        assertOnQueue()
        let temporary = objects.filter(\.objectID.isTemporaryID)
        guard !temporary.isEmpty else { return }
        var mapping: [ObjectID: ObjectID] = [:]
        let identifier = store.identifier
        let allocator = store.primaryKeys
        try storeAccess("reserving primary keys", writing: true) { connection in
            for (table, group) in Dictionary(grouping: temporary, by: \.layout.table) {
                var next = try allocator.reserve(group.count, in: table, on: connection)
                for object in group {
                    mapping[object.objectID] = ObjectID(
                        entityName: object.objectID.entityName, primaryKey: next, storeIdentifier: identifier)
                    next += 1
                }
            }
        }
        remapIDs(mapping)
    }

    // MARK: Root save

    /// The rows, join changes and orderings `objects` (the pending ones, in save order) need written.
    private func makePlan(_ objects: [ManagedObject]) -> SavePlan {
        var plan = SavePlan()
        var dropped: Set<ObjectID> = []
        for object in objects {
            let state = object.state
            let layout = object.layout
            let isInsert = state.lifecycle == .inserted
            func row() -> SavePlan.Row {
                SavePlan.Row(
                    objectID: object.objectID, attributes: state.attributes, toOne: state.toOne,
                    committed: state.committed,
                    // An insert writes every column; only updates need to know what changed.
                    changedAttributes: isInsert ? [] : layout.writableAttributeSlots.filter(state.attributeChanged),
                    changedToOne: isInsert ? [] : layout.toOne.indices.filter(state.toOneChanged),
                    expectedVersion: state.committed?.version ?? 0, insertionIndex: state.insertionIndex,
                    changedToMany: state.changedToMany.sorted())
            }
            switch state.lifecycle {
            case .inserted:
                plan.inserts.append(row())
            case .updated where state.hasPersistentChanges(layout):
                plan.updates.append(row())
            case .deleted:
                if state.committed == nil { dropped.insert(object.objectID) } else { plan.deletes.append(row()) }
                continue
            default:
                continue
            }
            for (slot, relationship) in layout.toMany.enumerated() where relationship.isOrdered {
                guard state.lifecycle == .inserted || state.changedToMany.contains(slot) else { continue }
                // An ordered to-many changed from the members' side may not be loaded: its order is the stored one
                // with this context's changes applied.
                let members = state.toMany[slot] ?? self.members(of: object, toManySlot: slot)
                guard !members.isEmpty else { continue }
                switch storage(of: relationship, in: layout) {
                case .foreignKey(_, let table, let column, _):
                    plan.orderings.append(
                        SavePlan.Ordering(owner: object.objectID, table: table, orderColumn: column, members: members))
                case .joinTable(let join, let ownerIsSource, _) where ownerIsSource:
                    plan.orderings.append(
                        SavePlan.Ordering(owner: object.objectID, table: join.name, orderColumn: nil, members: members))
                case .joinTable:
                    break
                }
            }
        }
        let deleted = dropped.union(plan.deletes.map(\.objectID))
        plan.joinChanges = joinChanges.filter { !deleted.contains($0.source) && !deleted.contains($0.destination) }
        return plan
    }

    /// Checks, resolves and writes `plan` in one transaction on the store's writer.
    ///
    /// Uniqueness is checked optimistically: the plan is written under a savepoint, and only when SQLite refuses a
    /// row for a UNIQUE index are the save's own objects grouped by key and the store searched for the colliding
    /// rows, the savepoint rolled back and the resolved plan written again. An import of new keys so pays one index
    /// probe per row and nothing more.
    private func writeToStore(_ plan: SavePlan, companion: TransactionCompanion?) throws -> SaveOutcome {
        let store = self.store
        let policy = mergePolicy
        let custom = customMergePolicy
        let history = HistoryAttribution(author: transactionAuthor, contextName: name)
        let recordsHistory = store.description.recordsHistory
        let outcome = try storeAccess("saving", writing: true) { connection in
            let blobs = store.blobWriter(on: connection)
            defer { if blobs != nil { store.releaseBlobs(on: connection) } }
            return try connection.transaction(.immediate) {
                try BlobWriter.discardingFilesOnFailure(blobs) {
                    var plan = plan
                    var outcome = SaveOutcome()
                    let detector = ConflictDetector(
                        connection: connection, schema: store.schema, layouts: store.layouts,
                        storeIdentifier: store.identifier)
                    let resolver = ConflictResolver(policy: policy, layouts: store.layouts)
                    let writer = SaveWriter(
                        connection: connection, schema: store.schema, layouts: store.layouts,
                        primaryKeys: store.primaryKeys, storeIdentifier: store.identifier,
                        history: recordsHistory ? history : nil, blobs: blobs)
                    let locking = try detector.lockingConflicts(in: plan)
                    if let custom {
                        try ConflictResolver.resolve(locking, by: custom, in: &plan, outcome: &outcome, store.layouts)
                    } else {
                        if policy == .error, !locking.isEmpty {
                            throw SaveConflictError(
                                lockingConflicts: locking.map(\.conflict),
                                constraintConflicts: try detector.constraintConflicts(in: plan).map(\.conflict))
                        }
                        try resolver.resolve(locking, in: &plan, outcome: &outcome)
                    }
                    try connection.execute("SAVEPOINT ferry_save")
                    let reservations = store.primaryKeys.reservations()
                    do {
                        var attempt = outcome
                        try writer.write(plan, outcome: &attempt)
                        try connection.execute("RELEASE ferry_save")
                        try companion?(connection)
                        return attempt
                    } catch let error as SQLiteError where error.extendedCode == .uniqueConstraint {
                        try connection.execute("ROLLBACK TO ferry_save")
                        try connection.execute("RELEASE ferry_save")
                        store.primaryKeys.restore(reservations)
                    }
                    let constraints = try detector.constraintConflicts(in: plan)
                    if let custom {
                        try ConflictResolver.resolve(
                            constraints, by: custom, in: &plan, outcome: &outcome, store.layouts)
                    } else {
                        if policy == .error {
                            throw SaveConflictError(
                                lockingConflicts: [], constraintConflicts: constraints.map(\.conflict))
                        }
                        try resolver.resolve(constraints, in: &plan, outcome: &outcome)
                    }
                    try writer.write(plan, outcome: &outcome)
                    try companion?(connection)
                    return outcome
                }
            }
        }
        store.historyNotifier.post(
            token: outcome.historyToken, author: history.author, contextName: history.contextName)
        return outcome
    }

    /// Brings the context up to date after the transaction committed, calls `didSave()` and posts the
    /// notification.
    private func finishSave(_ objects: [ManagedObject], _ outcome: SaveOutcome) {
        remapIDs(
            outcome.replacedIDs.isEmpty
                ? outcome.permanentIDs : outcome.permanentIDs.merging(outcome.replacedIDs) { _, replaced in replaced },
            outcome: outcome)
        let refreshed = Set(outcome.refreshed.map(outcome.finalID))
        let inserted = outcome.replacedIDs.isEmpty && outcome.discarded.isEmpty ? [] : Set(outcome.inserted)
        var saved: [ManagedObject] = []
        for object in objects {
            let id = object.objectID
            // Most saves discard and refresh nothing: no hashing of each ID for them.
            if !outcome.discarded.isEmpty && outcome.discarded.contains(id) {
                invalidate(object)
            } else if object.state.lifecycle == .deleted {
                saved.append(object)
            } else if !refreshed.isEmpty && refreshed.contains(id) {
                turnIntoFault(object)
            } else if let version = outcome.version(
                of: id, wasInserted: object.state.lifecycle == .inserted, inserted: inserted)
            {
                object.state.commit(version: version)
                saved.append(object)
            } else {
                object.state.commit(version: object.state.committed?.version ?? 0)
            }
        }
        for id in outcome.discarded {
            if let object = registeredObject(for: id) { invalidate(object) }
        }
        for id in refreshed {
            if let object = registeredObject(for: id), object.state.lifecycle != .invalid { turnIntoFault(object) }
        }
        pending = [:]
        joinChanges = []
        // Loaded to-many relationships become faults again: merge policies may have moved members between rows,
        // and the store now holds the truth. (A model without to-many relationships has none to walk.)
        if store.layouts.hasToMany {
            for entry in registered.values {
                let object = entry.takeUnretainedValue()
                for slot in object.state.toMany.indices { object.state.toMany[slot] = nil }
            }
        }
        refreshDerivedValues(of: saved)
        for object in saved { object.didSave() }
        for object in saved where object.state.lifecycle == .deleted { invalidate(object) }
        post(
            ContextDidSave(
                insertedObjectIDs: outcome.inserted, updatedObjectIDs: outcome.updated,
                deletedObjectIDs: outcome.deleted, contextName: name, transactionAuthor: transactionAuthor,
                historyToken: outcome.historyToken))
    }

    /// Gives objects new IDs (temporary to permanent, or merged into a survivor) and rewrites every reference the
    /// registered objects and pending join changes hold.
    func remapIDs(_ mapping: [ObjectID: ObjectID], outcome: SaveOutcome? = nil) {
        guard !mapping.isEmpty else { return }
        let final: (ObjectID) -> ObjectID = { id in outcome?.finalID(of: id) ?? mapping[id] ?? id }
        // Without replacements a new ID is final already (the mapping's values are permanent IDs, never its keys):
        // no lookup per object for it.
        let chains = !(outcome?.replacedIDs.isEmpty ?? true)
        let discarded = outcome?.discarded ?? []
        for (old, new) in mapping {
            guard let entry = registered.removeValue(forKey: old) else { continue }
            let object = entry.takeUnretainedValue()
            if !discarded.isEmpty, discarded.contains(old) {
                registered[old] = entry
                continue
            }
            object.objectID = chains ? final(new) : new
            registered[object.objectID] = entry
            if retainedObjects != nil, let strong = retainedObjects?.removeValue(forKey: old) {
                retainedObjects?[object.objectID] = strong
            }
            // After a save the pending table is emptied anyway; only obtainPermanentIDs needs it re-keyed.
            if outcome == nil, let strong = pending.removeValue(forKey: old) { pending[object.objectID] = strong }
        }
        // References to the remapped objects: only in relationships, which a model may not have.
        if store.layouts.hasToOne || store.layouts.hasToMany {
            for entry in registered.values {
                let object = entry.takeUnretainedValue()
                guard !object.state.isFault else { continue }
                for slot in object.state.toOne.indices {
                    if let id = object.state.toOne[slot], mapping[id] != nil { object.state.toOne[slot] = final(id) }
                }
                for slot in object.state.toMany.indices {
                    guard let members = object.state.toMany[slot], members.contains(where: { mapping[$0] != nil })
                    else {
                        continue
                    }
                    object.state.toMany[slot] = members.map { mapping[$0] != nil ? final($0) : $0 }
                }
            }
        }
        for index in joinChanges.indices {
            joinChanges[index].source = final(joinChanges[index].source)
            joinChanges[index].destination = final(joinChanges[index].destination)
        }
    }

    // MARK: Child save

    /// Pushes a child's changes into its parent, which becomes dirty; nothing reaches the store.
    /// Objects inserted in the child keep their temporary IDs.
    private func push(_ objects: [ManagedObject], into parent: ManagedObjectContext) throws {
        let states = objects.map { ($0.objectID, $0.state) }
        let changes = joinChanges
        parent.performAndWait {
            for (id, state) in states { parent.receive(id, state) }
            for change in changes {
                parent.joinChanges.removeAll {
                    $0.table == change.table && $0.source == change.source && $0.destination == change.destination
                }
                parent.joinChanges.append(change)
            }
        }
        for object in objects {
            if object.state.lifecycle == .deleted {
                invalidate(object)
            } else {
                object.state.commit(version: object.state.committed?.version ?? 0)
            }
        }
        pending = [:]
        joinChanges = []
        for object in objects { object.didSave() }
        post(
            ContextDidSave(
                insertedObjectIDs: states.filter { $0.1.lifecycle == .inserted }.map(\.0),
                updatedObjectIDs: states.filter { $0.1.lifecycle == .updated }.map(\.0),
                deletedObjectIDs: states.filter { $0.1.lifecycle == .deleted }.map(\.0), contextName: name,
                transactionAuthor: transactionAuthor))
    }

    /// Takes one object's state from a child's save.
    private func receive(_ id: ObjectID, _ state: ObjectState) {
        switch state.lifecycle {
        case .inserted:
            let object = registeredObject(for: id) ?? makeObject(layout(of: id.entity), id: id)
            object.state = state
            object.state.insertionIndex = nextInsertionIndex
            nextInsertionIndex += 1
            register(object)
            pending[id] = object
        case .updated:
            let object = self.object(with: id)
            object.willAccessValues()
            // Only what the child changed (against the values it started from): the parent's own unsaved changes to
            // other properties of the object stay, as in Core Data.
            for slot in state.attributes.indices where state.attributeChanged(slot) {
                object.state.attributes[slot] = state.attributes[slot]
            }
            for slot in state.toOne.indices where state.toOneChanged(slot) {
                object.state.toOne[slot] = state.toOne[slot]
            }
            for slot in state.changedToMany {
                object.state.toMany[slot] = state.toMany[slot]
                object.state.changedToMany.insert(slot)
            }
            objectDidChange(object)
        case .deleted:
            guard state.committed != nil || registeredObject(for: id) != nil else { return }
            delete(object(with: id))
        case .clean, .invalid:
            break
        }
    }
}
