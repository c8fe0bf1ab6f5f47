/// Checks one object's values against its model's rules before a save, as Core Data's `validateForInsert`,
/// `validateForUpdate` and `validateForDelete` do.
///
/// Build one per model and reuse it: regular expressions and decimal bounds are prepared once, when the
/// validator is created. The validator knows nothing about contexts or object IDs; the save pipeline passes an
/// object's entity, values and relationship counts, plus an opaque description used only to name the object in
/// errors.
///
/// ```swift
/// var validator = try ObjectValidator(model: model)
/// validator.addValidator(entity: "Book", key: "isbn") { value in
///     guard case .string(let isbn)? = value, isbn.count != 13 else { return nil }
///     return ValidationError(.managedObjectValidation, message: "an ISBN has 13 digits")
/// }
/// let errors = validator.validateForInsertOrUpdate(
///     entity: "Book", attributes: ["title": .string("Dune"), "isbn": nil],
///     relationshipCounts: ["author": 1], objectDescription: "Book/p12")
/// if let error = ValidationError.combined(errors) { throw error }
/// ```
///
/// Errors come in a stable order: attributes, then relationships, each in model order (inherited properties
/// first); for one attribute, the model's rules before custom validators.
public struct ObjectValidator: Sendable {
    /// A custom check of one attribute's value (Core Data's `validate<Key>`): nil when the value is acceptable,
    /// otherwise an error. Fields of the error left nil (entity, key, object description) are filled in.
    public typealias CustomValidator = @Sendable (AttributeValue?) -> ValidationError?
    /// A custom check that may also replace the value (Core Data's `validate<Key>` writing through its in-out
    /// pointer): a context saving, or ``ManagedObject/validateValue(_:forKey:)``, keeps the replacement.
    public typealias CoercingValidator = @Sendable (inout AttributeValue?) -> ValidationError?

    /// The model the rules come from.
    public let model: ManagedObjectModel
    /// Each entity's prepared rules, by entity name.
    let entityRules: [String: EntityRules]
    /// Custom validators by entity, then key, in registration order.
    private(set) var customValidators: [String: [String: [CoercingValidator]]] = [:]

    /// Prepares the rules of every entity of `model`.
    ///
    /// - Throws: ``ModelError`` with code ``ModelError/Code/invalidRegularExpression`` when an attribute's
    ///   regular expression does not compile (``ManagedObjectModel/validate()`` reports the same problem).
    public init(model: ManagedObjectModel) throws {
        self.model = model
        var rules: [String: EntityRules] = [:]
        for entity in model.entities where rules[entity.name] == nil {
            rules[entity.name] = try EntityRules(entity: entity.name, in: model)
        }
        self.entityRules = rules
    }

    /// Adds a custom check of `key` for objects of `entity` and of its sub-entities, run after the model's rules
    /// for that attribute. Several checks of one key run in the order they were added, a parent entity's first.
    ///
    /// `key` must be a non-derived attribute of `entity` (its own or inherited); anything else is a programming
    /// error and traps.
    public mutating func addValidator(
        entity: String, key: String, _ validator: @escaping CustomValidator
    ) {
        addCoercingValidator(entity: entity, key: key) { value in validator(value) }
    }

    /// Adds a custom check of `key` that may replace the value it is given, as ``addValidator(entity:key:_:)``
    /// otherwise: the checks after it, and the save, see the replacement.
    ///
    /// ```swift
    /// validator.addCoercingValidator(entity: "Book", key: "isbn") { value in
    ///     if case .string(let isbn)? = value { value = .string(isbn.filter(\.isNumber)) }
    ///     return nil
    /// }
    /// ```
    public mutating func addCoercingValidator(
        entity: String, key: String, _ validator: @escaping CoercingValidator
    ) {
        guard let rules = entityRules[entity] else {
            preconditionFailure("no entity '\(entity)' in the model")
        }
        precondition(
            rules.attributes.contains { $0.attribute.name == key },
            "'\(key)' is not a non-derived attribute of \(entity)")
        customValidators[entity, default: [:]][key, default: []].append(validator)
    }

    /// Checks an object about to be inserted or updated (Core Data's `validateForInsert`/`validateForUpdate`).
    ///
    /// - Parameters:
    ///   - entity: The object's entity; it must be in the model.
    ///   - attributes: The object's attribute values by name; a missing name counts as nil. Derived attributes
    ///     are not checked (the store maintains them). Names that are not attributes of the entity trap.
    ///   - relationshipCounts: How many objects each relationship holds (to-one: 0 or 1); a missing name counts
    ///     as 0.
    ///   - objectDescription: How errors name the object, for example its object ID.
    /// - Returns: Every failure, in model order; empty when the object is valid. Pass the result to
    ///   ``ValidationError/combined(_:)`` to get the single error Core Data would report.
    public func validateForInsertOrUpdate(
        entity: String, attributes: [String: AttributeValue?], relationshipCounts: [String: Int],
        objectDescription: String
    ) -> [ValidationError] {
        let rules = rules(of: entity)
        precondition(
            attributes.keys.allSatisfy { rules.attributeNames.contains($0) },
            "values given for keys that are not attributes of \(entity)")
        precondition(
            relationshipCounts.keys.allSatisfy { rules.relationshipNames.contains($0) },
            "counts given for keys that are not relationships of \(entity)")
        var slots = model.allAttributes(of: entity).map { attributes[$0.name] ?? nil }
        return validateForInsertOrUpdate(
            entity: entity, attributeSlots: &slots, relationshipCount: { relationshipCounts[$0.name] ?? 0 },
            objectDescription: objectDescription)
    }

    /// ``validateForInsertOrUpdate(entity:attributes:relationshipCounts:objectDescription:)`` for a managed object,
    /// without building dictionaries: `attributeSlots` holds every attribute's value in model order (inherited
    /// first, derived included), where coercing validators leave their replacements, and `relationshipCount`
    /// counts a relationship's objects.
    func validateForInsertOrUpdate(
        entity: String, attributeSlots values: inout [AttributeValue?],
        relationshipCount: (RelationshipDescription) -> Int, objectDescription: String
    ) -> [ValidationError] {
        let rules = rules(of: entity)
        let custom = customValidators(of: rules)
        // Most models have no custom validators: nothing replaces a value, so the values are only read. Written
        // through the in-out array, they were copied (with a retain of every value) for every object, the copy
        // being made before the loop whether or not a validator ran.
        guard !custom.isEmpty else {
            return modelRuleErrors(
                of: values, rules, entity: entity, relationshipCount: relationshipCount,
                objectDescription: objectDescription)
        }
        var errors: [ValidationError] = []
        for index in rules.attributes.indices {
            let slot = rules.attributeSlots[index]
            let attribute = rules.attributes[index]
            guard let validators = custom[attribute.attribute.name] else {
                errors += attributeErrors(values[slot], attribute, entity: entity, objectDescription: objectDescription)
                continue
            }
            errors += check(&values[slot], attribute, validators, entity: entity, objectDescription: objectDescription)
        }
        errors += relationshipErrors(
            rules, entity: entity, count: relationshipCount, objectDescription: objectDescription)
        return errors
    }

    /// The model's rules on `values`, every attribute's value in model order, for an entity without custom
    /// validators.
    private func modelRuleErrors(
        of values: [AttributeValue?], _ rules: EntityRules, entity: String,
        relationshipCount: (RelationshipDescription) -> Int, objectDescription: String
    ) -> [ValidationError] {
        var errors: [ValidationError] = []
        for index in rules.attributes.indices {
            let value = values[rules.attributeSlots[index]]
            // Most values pass on their kind alone: the attribute's full rules are not read (nor copied) for them.
            if rules.quickChecks[index].passes(value) { continue }
            errors += attributeErrors(
                value, rules.attributes[index], entity: entity, objectDescription: objectDescription)
        }
        errors += relationshipErrors(
            rules, entity: entity, count: relationshipCount, objectDescription: objectDescription)
        return errors
    }

    /// The failures of `value` against `attribute`'s model rules.
    private func attributeErrors(
        _ value: AttributeValue?, _ attribute: AttributeRules, entity: String, objectDescription: String
    ) -> [ValidationError] {
        let failures = attribute.check(value)
        guard !failures.isEmpty else { return [] }
        return failures.map {
            $0.filling(
                entity: entity, key: attribute.attribute.name, objectDescription: objectDescription, value: value)
        }
    }

    /// The failures of the relationships' counts against their rules.
    private func relationshipErrors(
        _ rules: EntityRules, entity: String, count: (RelationshipDescription) -> Int, objectDescription: String
    ) -> [ValidationError] {
        var errors: [ValidationError] = []
        for relationship in rules.relationships {
            guard let failure = EntityRules.check(relationship, count: count(relationship)) else { continue }
            errors.append(failure.filling(entity: entity, key: relationship.name, objectDescription: objectDescription))
        }
        return errors
    }

    /// Checks `value` for the attribute `key` of `entity`'s objects (Core Data's `validateValue(_:forKey:)`): the
    /// model's rules, then the custom validators, which may replace it.
    ///
    /// `key` must be a non-derived attribute of `entity`; anything else traps.
    ///
    /// - Returns: Every failure, each carrying the value it found and the rule it broke; empty when the value
    ///   passes.
    public func validateValue(
        _ value: inout AttributeValue?, forKey key: String, entity: String, objectDescription: String
    ) -> [ValidationError] {
        let rules = rules(of: entity)
        guard let attribute = rules.attributes.first(where: { $0.attribute.name == key }) else {
            preconditionFailure("'\(key)' is not a non-derived attribute of \(entity)")
        }
        return check(
            &value, attribute, customValidators(of: rules)[key] ?? [], entity: entity,
            objectDescription: objectDescription)
    }

    /// One attribute's checks: the model's rules, then `validators` in order, each seeing the value the ones
    /// before it left.
    private func check(
        _ value: inout AttributeValue?, _ attribute: AttributeRules, _ validators: [CoercingValidator],
        entity: String, objectDescription: String
    ) -> [ValidationError] {
        let name = attribute.attribute.name
        let failures = attribute.check(value)
        var errors = failures.map {
            $0.filling(entity: entity, key: name, objectDescription: objectDescription, value: value)
        }
        // A value of the wrong kind is not what a custom check is written for; report only the type problem.
        guard !failures.contains(where: { $0.code == .managedObjectValidation }) else { return errors }
        for validator in validators {
            let given = value
            guard let error = validator(&value) else { continue }
            errors.append(error.filling(entity: entity, key: name, objectDescription: objectDescription, value: given))
        }
        return errors
    }

    /// Checks an object about to be deleted (Core Data's `validateForDelete`): each relationship whose delete rule
    /// is ``DeleteRule/deny`` and that still holds objects fails with ``ValidationError/Code/relationshipDeniedDelete``
    /// (Core Data's error 1600).
    ///
    /// - Parameters:
    ///   - entity: The object's entity; it must be in the model.
    ///   - relationshipCounts: How many objects each relationship holds; a missing name counts as 0.
    ///   - objectDescription: How errors name the object.
    /// - Returns: Every failure, in model order; empty when the object may be deleted.
    public func validateForDelete(
        entity: String, relationshipCounts: [String: Int], objectDescription: String
    ) -> [ValidationError] {
        let rules = rules(of: entity)
        precondition(
            relationshipCounts.keys.allSatisfy { rules.relationshipNames.contains($0) },
            "counts given for keys that are not relationships of \(entity)")
        return rules.relationships.compactMap { relationship in
            let count = relationshipCounts[relationship.name] ?? 0
            guard relationship.deleteRule == .deny, count > 0 else { return nil }
            return ValidationError(
                .relationshipDeniedDelete,
                message: "the delete rule is Deny and the relationship still holds objects; "
                    + "empty it before deleting the object",
                entity: entity, key: relationship.name, objectDescription: objectDescription, rule: "@count == 0")
        }
    }

    /// Whether any custom validator was added (values can be replaced only then).
    var hasCustomValidators: Bool { !customValidators.isEmpty }

    /// The prepared rules of `entity`, which must be in the model.
    private func rules(of entity: String) -> EntityRules {
        guard let rules = entityRules[entity] else { preconditionFailure("no entity '\(entity)' in the model") }
        return rules
    }

    /// The custom validators that apply to an entity's objects, by key: its ancestors' first, then its own.
    private func customValidators(of rules: EntityRules) -> [String: [CoercingValidator]] {
        guard !customValidators.isEmpty else { return [:] }
        var byKey: [String: [CoercingValidator]] = [:]
        for name in rules.ancestry {
            for (key, validators) in customValidators[name] ?? [:] {
                byKey[key, default: []] += validators
            }
        }
        return byKey
    }
}
