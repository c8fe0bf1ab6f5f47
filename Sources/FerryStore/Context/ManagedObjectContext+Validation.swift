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
        isValidatingPendingObjects = true
        defer { isValidatingPendingObjects = false }
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
                errors += modelRuleErrors(of: object, objectDescription: description)
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

    /// The model's rules (and custom validators) on `object` as it is now, for an insert or update; values the
    /// custom validators replace are kept on the object.
    func modelRuleErrors(of object: ManagedObject, objectDescription: String) -> [ValidationError] {
        // A copy: the relationship counts read the object's state while the values are checked. It costs nothing
        // unless a custom validator replaces a value.
        var values = object.state.attributes
        let errors = validator.validateForInsertOrUpdate(
            entity: object.layout.name, attributeSlots: &values,
            relationshipCount: { relationshipCount(of: object, $0) }, objectDescription: objectDescription)
        guard validator.hasCustomValidators else { return errors }
        for slot in values.indices where values[slot] != object.state.attributes[slot] {
            object.state.attributes[slot] = values[slot]
        }
        return errors
    }

    /// The model's rules for deleting `object`: its Deny relationships.
    func deleteRuleErrors(of object: ManagedObject) -> [ValidationError] {
        validator.validateForDelete(
            entity: object.layout.name, relationshipCounts: denyRelationshipCounts(of: object),
            objectDescription: object.objectID.uriString)
    }

    /// The base `validateFor…` methods of a managed object called outside a save: the model's rules on the object
    /// as it is, thrown as one error. Inside a save (which runs them itself) nothing happens.
    ///
    /// - Throws: ``ValidationError``.
    func validateExplicitly(_ object: ManagedObject, deleting: Bool) throws {
        assertOnQueue()
        guard !isValidatingPendingObjects else { return }
        object.willAccessValues()
        let errors =
            deleting
            ? deleteRuleErrors(of: object)
            : modelRuleErrors(of: object, objectDescription: object.objectID.uriString)
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
