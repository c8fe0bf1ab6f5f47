import Yams

/// Attributes and relationships, each in its short form (`description: string`, `category: Category`) or its
/// long form (a mapping of settings).
extension ModelFileParser {
    /// An attribute; `uniquePosition` is where `unique: true` was written, if it was.
    mutating func parseAttribute(
        _ name: String, of entity: String, keyNode: Node, value: Node
    ) -> (attribute: AttributeDescription, uniquePosition: ModelFileSourceMap.Position?) {
        let element = ModelElement.attribute(entity: entity, name: name)
        sourceMap.record(Self.position(of: keyNode), for: element)
        var attribute = AttributeDescription(name: name, type: .string)
        if Self.isNull(value) {
            let types = ModelFileVocabulary.typeNames.joined(separator: ", ")
            report(.missingKey, "missing type; expected one of \(types)", element, keyNode)
            sourceMap.markUnreliable(element)
            return (attribute, nil)
        }
        if case .scalar = value {
            // The short form: just the type, optional, no rules.
            if let type = attributeType(value, transformerNode: nil, element) {
                attribute.type = type
            } else {
                sourceMap.markUnreliable(element)
            }
            return (attribute, nil)
        }
        guard let fields = fields(of: value, allowed: ModelFileVocabulary.attributeKeys, element: element) else {
            sourceMap.markUnreliable(element)
            return (attribute, nil)
        }
        guard let typeNode = fields["type"] else {
            let types = ModelFileVocabulary.typeNames.joined(separator: ", ")
            if !fields.suggestedKeys.contains("type") {
                report(.missingKey, "missing 'type'; expected one of \(types)", element, keyNode)
            }
            sourceMap.markUnreliable(element)
            return (attribute, nil)
        }
        guard let type = attributeType(typeNode, transformerNode: fields["transformer"], element) else {
            sourceMap.markUnreliable(element)
            return (attribute, nil)
        }
        attribute.type = type
        var uniquePosition: ModelFileSourceMap.Position?
        for (key, keyNode, node) in fields.entries {
            switch key {
            case "optional": attribute.isOptional = bool(node, key, element) ?? attribute.isOptional
            case "default": attribute.defaultValue = defaultValue(node, type: type, element)
            case "transient": attribute.isTransient = bool(node, key, element) ?? false
            case "indexed": attribute.isIndexed = bool(node, key, element) ?? false
            case "unique": if bool(node, key, element) == true { uniquePosition = Self.position(of: keyNode) }
            case "min": attribute.minValue = bound(node, key, type: type, element)
            case "max": attribute.maxValue = bound(node, key, type: type, element)
            case "minLength": attribute.minLength = integer(node, key, element)
            case "maxLength": attribute.maxLength = integer(node, key, element)
            case "regex": attribute.regularExpression = text(node, key, element)
            case "allowsExternalStorage": attribute.allowsExternalStorage = bool(node, key, element) ?? false
            case "derivation": attribute.derivation = text(node, key, element)
            case "precision": attribute.decimalPrecision = integer(node, key, element)
            case "scale": attribute.decimalScale = integer(node, key, element)
            case "valueType":
                guard case .transformable = type else {
                    report(
                        .invalidRule, "'valueType' applies to type transformable only, not \(type.name)", element,
                        keyNode)
                    break
                }
                attribute.valueTypeName = text(node, key, element)
            case "renamingIdentifier": attribute.renamingIdentifier = text(node, key, element)
            default: break  // `type` and `transformer`, read above
            }
        }
        return (attribute, uniquePosition)
    }

    /// The type `node` names; `transformable` takes its transformer's name from `transformerNode`.
    private mutating func attributeType(
        _ node: Node, transformerNode: Node?, _ element: ModelElement
    ) -> AttributeType? {
        guard let name = text(node, "type", element) else { return nil }
        if name == "transformable" {
            guard let transformerNode else {
                report(
                    .missingKey, "type transformable needs 'transformer: NAME', the name of a registered transformer",
                    element, node)
                return nil
            }
            return text(transformerNode, "transformer", element).map { .transformable(transformer: $0) }
        }
        guard let type = ModelFileVocabulary.simpleType(named: name) else {
            report(
                .unknownType, NameSuggestion.unknown("type", name, expected: ModelFileVocabulary.typeNames),
                element, node)
            return nil
        }
        if let transformerNode {
            report(
                .invalidRule, "'transformer' applies to type transformable only, not \(name)", element,
                transformerNode)
        }
        return type
    }

    /// A relationship; in its short form just the destination (to-one, optional, nullify, no inverse).
    mutating func parseRelationship(
        _ name: String, of entity: String, keyNode: Node, value: Node
    ) -> RelationshipDescription {
        let element = ModelElement.relationship(entity: entity, name: name)
        sourceMap.record(Self.position(of: keyNode), for: element)
        var relationship = RelationshipDescription(name: name, destinationEntity: "")
        if Self.isNull(value) {
            report(
                .missingKey, "missing destination; write '\(name): Entity' or '\(name): { to: Entity, … }'",
                element, keyNode)
            sourceMap.markUnreliable(element)
            return relationship
        }
        if case .scalar = value {
            if let destination = text(value, "to", element) {
                relationship.destinationEntity = destination
                sourceMap.record(Self.position(of: value), for: element, key: "to")
            }
            return relationship
        }
        guard let fields = fields(of: value, allowed: ModelFileVocabulary.relationshipKeys, element: element) else {
            sourceMap.markUnreliable(element)
            return relationship
        }
        guard let toNode = fields["to"], let destination = text(toNode, "to", element) else {
            if fields["to"] == nil && !fields.suggestedKeys.contains("to") {
                report(.missingKey, "missing 'to': the destination entity", element, keyNode)
            }
            sourceMap.markUnreliable(element)
            return relationship
        }
        relationship.destinationEntity = destination
        for (key, _, node) in fields.entries {
            switch key {
            case "inverse": relationship.inverseName = text(node, key, element)
            case "toMany": relationship.isToMany = bool(node, key, element) ?? false
            case "ordered": relationship.isOrdered = bool(node, key, element) ?? false
            case "deleteRule": relationship.deleteRule = deleteRule(node, element) ?? .nullify
            case "optional": relationship.isOptional = bool(node, key, element) ?? true
            case "minCount": relationship.minCount = integer(node, key, element) ?? 0
            case "maxCount": relationship.maxCount = integer(node, key, element) ?? 0
            case "renamingIdentifier": relationship.renamingIdentifier = text(node, key, element)
            default: break  // `to`, read above
            }
        }
        return relationship
    }

    private mutating func deleteRule(_ node: Node, _ element: ModelElement) -> DeleteRule? {
        guard let name = text(node, "deleteRule", element) else { return nil }
        guard let rule = DeleteRule(rawValue: name) else {
            report(
                .invalidValue,
                NameSuggestion.unknown("delete rule", name, expected: ModelFileVocabulary.deleteRuleNames),
                element, node)
            return nil
        }
        return rule
    }
}
