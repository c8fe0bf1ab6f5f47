extension ManagedObjectContext {
    /// Validates every pending object as the save will write it: the model's rules and the objects' own
    /// `validateFor…` methods, every failure gathered into one error (REFERENCE.md §9.4).
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
                    entity: object.layout.name, attributes: attributeValues(of: object),
                    relationshipCounts: relationshipCounts(of: object, onlyDeny: false),
                    objectDescription: description)
                collect(&errors, from: object) {
                    object.state.lifecycle == .inserted ? try object.validateForInsert() : try object.validateForUpdate()
                }
            case .deleted where object.state.committed != nil:
                errors += validator.validateForDelete(
                    entity: object.layout.name, relationshipCounts: relationshipCounts(of: object, onlyDeny: true),
                    objectDescription: description)
                collect(&errors, from: object) { try object.validateForDelete() }
            default:
                continue
            }
        }
        if let error = ValidationError.combined(errors) { throw error }
    }

    private func attributeValues(of object: ManagedObject) -> [String: AttributeValue?] {
        var values: [String: AttributeValue?] = [:]
        for (slot, attribute) in object.layout.attributes.enumerated() {
            values.updateValue(object.state.attributes[slot], forKey: attribute.name)
        }
        return values
    }

    /// How many objects each relationship holds, for the relationships whose rules need a count (loading a to-many
    /// only when its rules look at it).
    private func relationshipCounts(of object: ManagedObject, onlyDeny: Bool) -> [String: Int] {
        var counts: [String: Int] = [:]
        for (slot, relationship) in object.layout.toOne.enumerated() where !onlyDeny || relationship.deleteRule == .deny {
            counts[relationship.name] = object.state.toOne[slot] == nil ? 0 : 1
        }
        for (slot, relationship) in object.layout.toMany.enumerated() {
            let needed =
                onlyDeny
                ? relationship.deleteRule == .deny
                : !relationship.isOptional || relationship.minCount > 0 || relationship.maxCount > 0
            if needed { counts[relationship.name] = members(of: object, toManySlot: slot).count }
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
