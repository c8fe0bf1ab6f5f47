/// Applies a merge policy to a save plan's conflicts (Core Data's conflicts), changing the plan and recording
/// in the outcome what the context must do to its objects afterwards.
///
/// Our rules where Core Data's behaviour is unknown or surprising, also in <doc:CoreDataSemantics>:
/// - A row deleted in the store while updated in memory: store-trump and rollback drop the update and the object
///   leaves the context; object-trump and overwrite report the conflict as the error policy would.
/// - Objects of one save sharing a key: the keeper is a saved object if one takes part, otherwise the one
///   inserted first; the others are folded into it. Under object-trump and overwrite the values of the object
///   inserted last win (the latest record of an import stream); under store-trump and rollback the keeper's own.
/// - A *saved* object whose changed key collides keeps its old key: its changes are discarded (object-trump
///   first copies them onto the stored row holding the key; overwrite replaces that row).
struct ConflictResolver {
    let policy: MergePolicy
    let layouts: ObjectLayouts

    // MARK: Optimistic locking

    func resolve(
        _ findings: [ConflictDetector.LockingFinding], in plan: inout SavePlan, outcome: inout SaveOutcome
    ) throws {
        for finding in findings {
            let id = finding.conflict.objectID
            if let index = plan.deletes.firstIndex(where: { $0.objectID == id }) {
                if policy == .rollback {
                    plan.deletes.remove(at: index)
                    outcome.refreshed.insert(id)
                } else {
                    plan.deletes[index].expectedVersion = finding.stored?.version ?? 0
                }
                continue
            }
            guard let index = plan.updates.firstIndex(where: { $0.objectID == id }) else { continue }
            guard let stored = finding.stored else {
                guard policy == .mergeByPropertyStoreTrump || policy == .rollback else {
                    throw SaveConflictError(lockingConflicts: [finding.conflict], constraintConflicts: [])
                }
                plan.updates.remove(at: index)
                outcome.discarded.insert(id)
                continue
            }
            let layout = layouts[id.entity]
            switch policy {
            case .error:
                throw SaveConflictError(lockingConflicts: [finding.conflict], constraintConflicts: [])
            case .rollback:
                plan.updates.remove(at: index)
            case .mergeByPropertyStoreTrump:
                // Where the store changed a property too, the store's value stays.
                let committed = plan.updates[index].committed
                plan.updates[index].changedAttributes.removeAll {
                    stored.attributes[$0] != committed?.attributes[$0]
                }
                plan.updates[index].changedToOne.removeAll { stored.toOne[$0] != committed?.toOne[$0] }
                plan.updates[index].expectedVersion = stored.version
            case .mergeByPropertyObjectTrump:
                plan.updates[index].expectedVersion = stored.version
            case .overwrite:
                plan.updates[index].changedAttributes = layout.writableAttributeSlots
                plan.updates[index].changedToOne = Array(layout.toOne.indices)
                plan.updates[index].expectedVersion = stored.version
            }
            outcome.refreshed.insert(id)
        }
    }

    // MARK: Uniqueness constraints

    func resolve(
        _ findings: [ConflictDetector.ConstraintFinding], in plan: inout SavePlan, outcome: inout SaveOutcome
    ) throws {
        if policy == .error, !findings.isEmpty {
            throw SaveConflictError(lockingConflicts: [], constraintConflicts: findings.map(\.conflict))
        }
        for finding in findings {
            // Objects an earlier finding already folded away take no further part.
            let objects = finding.conflict.conflictingObjectIDs.filter { id in
                plan.inserts.contains { $0.objectID == id } || plan.updates.contains { $0.objectID == id }
            }
            guard let keeper = foldTogether(objects, in: &plan, outcome: &outcome) else { continue }
            if let stored = finding.stored { resolve(keeper, against: stored, in: &plan, outcome: &outcome) }
        }
    }

    /// Folds the objects of one save sharing a key into one keeper and returns it.
    private func foldTogether(_ objects: [ObjectID], in plan: inout SavePlan, outcome: inout SaveOutcome) -> ObjectID? {
        guard objects.count > 1 else { return objects.first }
        let saved = objects.filter { id in plan.updates.contains { $0.objectID == id } }
        let inserted = objects.compactMap { id in plan.inserts.first { $0.objectID == id } }
            .sorted { $0.insertionIndex < $1.insertionIndex }
        guard let keeper = saved.first ?? inserted.first?.objectID else { return nil }
        if policy == .mergeByPropertyObjectTrump || policy == .overwrite, let last = inserted.last,
            last.objectID != keeper
        {
            copyValues(of: last, onto: keeper, in: &plan, allAttributes: true)
            outcome.refreshed.insert(keeper)
        }
        for id in objects where id != keeper {
            if let index = plan.inserts.firstIndex(where: { $0.objectID == id }) {
                plan.inserts.remove(at: index)
                outcome.replacedIDs[id] = keeper
                outcome.discarded.insert(id)
                plan.repoint(id, to: keeper)
            } else if let index = plan.updates.firstIndex(where: { $0.objectID == id }) {
                plan.updates.remove(at: index)
                outcome.refreshed.insert(id)
            }
        }
        return keeper
    }

    /// Resolves `object`'s collision with the stored row `stored`.
    private func resolve(
        _ object: ObjectID, against stored: StoredRow, in plan: inout SavePlan, outcome: inout SaveOutcome
    ) {
        let insertIndex = plan.inserts.firstIndex { $0.objectID == object }
        switch policy {
        case .error:
            return
        case .mergeByPropertyStoreTrump, .rollback:
            break
        case .mergeByPropertyObjectTrump:
            let source = insertIndex.map { plan.inserts[$0] } ?? plan.updates.first { $0.objectID == object }
            guard let source else { return }
            ensureUpdate(of: stored, in: &plan)
            copyValues(of: source, onto: stored.objectID, in: &plan, allAttributes: insertIndex != nil)
            outcome.refreshed.insert(stored.objectID)
        case .overwrite:
            plan.updates.removeAll { $0.objectID == stored.objectID }
            plan.deletes.removeAll { $0.objectID == stored.objectID }
            plan.replacements.append(SavePlan.Replacement(stored: stored.objectID, replacement: object))
            outcome.replacedIDs[stored.objectID] = object
            outcome.discarded.insert(stored.objectID)
            return
        }
        if let insertIndex {
            plan.inserts.remove(at: insertIndex)
            outcome.replacedIDs[object] = stored.objectID
            outcome.discarded.insert(object)
            plan.repoint(object, to: stored.objectID)
        } else {
            plan.updates.removeAll { $0.objectID == object }
            outcome.refreshed.insert(object)
        }
    }

    /// Makes sure the plan updates the stored row `stored` (adding an update with no changes yet).
    private func ensureUpdate(of stored: StoredRow, in plan: inout SavePlan) {
        guard !plan.updates.contains(where: { $0.objectID == stored.objectID }) else { return }
        plan.updates.append(
            SavePlan.Row(
                objectID: stored.objectID, attributes: stored.attributes, toOne: stored.toOne,
                committed: ObjectSnapshot(attributes: stored.attributes, toOne: stored.toOne, version: stored.version),
                changedAttributes: [], changedToOne: [], expectedVersion: stored.version, insertionIndex: 0))
    }

    /// Copies `source`'s values onto the planned row of `target`, by property name: every writable attribute and
    /// to-one when `allAttributes` (an inserted source), otherwise only the source's changed ones.
    private func copyValues(
        of source: SavePlan.Row, onto target: ObjectID, in plan: inout SavePlan, allAttributes: Bool
    ) {
        let sourceLayout = layouts[source.objectID.entity]
        let targetLayout = layouts[target.entity]
        func copy(_ row: inout SavePlan.Row) {
            let attributeSlots = allAttributes ? sourceLayout.writableAttributeSlots : source.changedAttributes
            for slot in attributeSlots {
                guard case .attribute(let targetSlot)? = targetLayout.slots[sourceLayout.attributes[slot].name],
                    targetLayout.writableAttributeSlots.contains(targetSlot)
                else { continue }
                row.attributes[targetSlot] = source.attributes[slot]
                if !row.changedAttributes.contains(targetSlot) { row.changedAttributes.append(targetSlot) }
            }
            let toOneSlots = allAttributes ? Array(sourceLayout.toOne.indices) : source.changedToOne
            for slot in toOneSlots {
                guard case .toOne(let targetSlot)? = targetLayout.slots[sourceLayout.toOne[slot].name] else { continue }
                row.toOne[targetSlot] = source.toOne[slot]
                if !row.changedToOne.contains(targetSlot) { row.changedToOne.append(targetSlot) }
            }
        }
        if let index = plan.inserts.firstIndex(where: { $0.objectID == target }) {
            copy(&plan.inserts[index])
        } else if let index = plan.updates.firstIndex(where: { $0.objectID == target }) {
            copy(&plan.updates[index])
        }
    }
}
