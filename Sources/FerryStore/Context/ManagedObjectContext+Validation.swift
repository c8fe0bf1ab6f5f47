extension ManagedObjectContext {
    /// Validates `object` as a save would now, without saving: the model's rules and the object's own
    /// `validateFor…` methods. An importer checks an object before a later record changes it again, so that a
    /// failure is pinned on the record that caused it. An object without pending changes passes.
    ///
    /// - Throws: ``ValidationError`` naming the object (code ``ValidationError/Code/multipleErrors`` for several
    ///   failures).
    package func validate(_ object: ManagedObject) throws {
        assertOnQueue()
        try validatePendingObjects([object])
    }

    /// Validates every pending object as the save will write it: the model's rules and the objects' own
    /// `validateFor…` methods, every failure gathered into one error.
    ///
    /// - Throws: ``ValidationError``, with code ``ValidationError/Code/multipleErrors`` for several failures.
    func validatePendingObjects(_ objects: [ManagedObject]) throws {
        var errors: [ValidationError] = []
        for object in objects {
            // Errors name the object by its URI, which is only worth building for an object that fails.
            let description = ""
            let failuresBefore = errors.count
            defer {
                for index in failuresBefore..<errors.count where errors[index].objectDescription == description {
                    errors[index].objectDescription = object.objectID.uriString
                }
            }
            switch object.state.lifecycle {
            case .inserted, .updated:
                guard object.state.hasPersistentChanges(object.layout) else { continue }
                errors += validator.validateForInsertOrUpdate(
                    entity: object.layout.name, attributeSlots: object.state.attributes,
                    relationshipCount: { relationshipCount(of: object, $0) }, objectDescription: description)
                collect(&errors, from: object) {
                    object.state.lifecycle == .inserted
                        ? try object.validateForInsert() : try object.validateForUpdate()
                }
            case .deleted where object.state.committed != nil:
                errors += validator.validateForDelete(
                    entity: object.layout.name, relationshipCounts: denyRelationshipCounts(of: object),
                    objectDescription: description)
                collect(&errors, from: object) { try object.validateForDelete() }
            default:
                continue
            }
        }
        if let error = ValidationError.combined(errors) { throw error }
    }

    /// How many objects `relationship` of `object` holds; a to-many is loaded only when its rules look at the
    /// count (it is not optional, or has a minimum or maximum).
    private func relationshipCount(of object: ManagedObject, _ relationship: RelationshipDescription) -> Int {
        switch object.layout.slots[relationship.name] {
        case .toOne(let slot)?:
            return object.state.toOne[slot] == nil ? 0 : 1
        case .toMany(let slot)?:
            let needed = !relationship.isOptional || relationship.minCount > 0 || relationship.maxCount > 0
            return needed ? members(of: object, toManySlot: slot).count : 0
        default:
            return 0
        }
    }

    /// How many objects each relationship with the Deny rule holds, for `validateForDelete`.
    private func denyRelationshipCounts(of object: ManagedObject) -> [String: Int] {
        var counts: [String: Int] = [:]
        for (slot, relationship) in object.layout.toOne.enumerated() where relationship.deleteRule == .deny {
            counts[relationship.name] = object.state.toOne[slot] == nil ? 0 : 1
        }
        for (slot, relationship) in object.layout.toMany.enumerated() where relationship.deleteRule == .deny {
            counts[relationship.name] = members(of: object, toManySlot: slot).count
        }
        return counts
    }

    /// Runs a custom validation method, turning what it throws into validation errors naming the object.
    private func collect(_ errors: inout [ValidationError], from object: ManagedObject, _ body: () throws -> Void) {
        do {
            try body()
        } catch let error as ValidationError {
            errors.append(
                error.filling(entity: object.layout.name, key: nil, objectDescription: object.objectID.uriString))
        } catch {
            errors.append(
                ValidationError(
                    .managedObjectValidation, message: "\(error)", entity: object.layout.name,
                    objectDescription: object.objectID.uriString))
        }
    }
}
