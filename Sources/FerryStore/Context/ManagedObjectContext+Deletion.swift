extension ManagedObjectContext {
    /// Runs the delete rules of objects deleted since the last time (Core Data's `processPendingChanges`): each
    /// deleted object's `prepareForDeletion()`, then nullify and cascade through its relationships, recursively.
    /// Deny is checked when the save validates; no-action leaves the other side alone. Runs at the start of
    /// every save and at the end of every ``perform(_:)``.
    public func processPendingChanges() {
        assertOnQueue()
        while !unpropagatedDeletions.isEmpty {
            let id = unpropagatedDeletions.removeFirst()
            guard let object = registeredObject(for: id), object.state.lifecycle == .deleted else { continue }
            object.prepareForDeletion()
            propagateDeletion(of: object)
        }
        postEventChanges()
        eventNumber &+= 1
    }

    private func propagateDeletion(of object: ManagedObject) {
        let id = object.objectID
        for (slot, relationship) in object.layout.toOne.enumerated() {
            guard let targetID = object.state.toOne[slot] else { continue }
            apply(relationship.deleteRule, from: id, to: targetID, inverse: inverse(of: relationship))
        }
        for (slot, relationship) in object.layout.toMany.enumerated()
        where relationship.deleteRule == .nullify || relationship.deleteRule == .cascade {
            for memberID in members(of: object, toManySlot: slot) {
                apply(relationship.deleteRule, from: id, to: memberID, inverse: inverse(of: relationship))
            }
        }
    }

    /// Applies one delete rule to one destination object of a deleted object.
    private func apply(
        _ rule: DeleteRule, from deleted: ObjectID, to targetID: ObjectID, inverse: RelationshipDescription?
    ) {
        switch rule {
        case .cascade:
            let target = object(with: targetID)
            if target.state.lifecycle != .invalid { delete(target) }
        case .nullify:
            guard let inverse else { return }
            let target = object(with: targetID)
            guard target.state.lifecycle != .invalid else { return }
            target.willAccessValues()
            switch target.layout.slots[inverse.name] {
            case .toOne(let slot)? where target.state.toOne[slot] == deleted:
                target.state.toOne[slot] = nil
                objectDidChange(target)
            case .toMany(let slot)?:
                // A loaded to-many forgets the object; a join row goes with the deleted row at save. The owner is
                // updated, as when a member leaves through its to-one, so its count rules are checked at the save.
                target.state.toMany[slot]?.removeAll { $0 == deleted }
                target.state.changedToMany.insert(slot)
                objectDidChange(target)
            default:
                break
            }
        case .deny, .noAction:
            break
        }
    }
}
