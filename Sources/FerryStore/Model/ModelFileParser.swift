import Yams

/// Turns the YAML tree of a model file into a ``ManagedObjectModel``, noting where each part was written and
/// gathering every problem of form (unknown keys and types, values of the wrong kind) instead of stopping at the
/// first. Problems of meaning (unknown entities, inverses, constraints…) are ``ModelValidator``'s.
///
/// It walks Yams' `Node` mappings pair by pair, so entities and properties keep the order they were written in.
/// See ``ManagedObjectModel/load(from:)`` for the format.
struct ModelFileParser {
    /// The path that diagnostics name.
    let file: String
    /// Problems found so far, in the order found.
    private(set) var errors: [ModelError] = []
    /// Where each part of the model was written.
    var sourceMap = ModelFileSourceMap()

    init(file: String) {
        self.file = file
    }

    /// The model described by `root` (the document's top node, `nil` for an empty document). When ``errors`` is
    /// not empty afterwards the model is incomplete and must not be used.
    mutating func parse(_ root: Node?) -> ManagedObjectModel {
        guard let root, !Self.isNull(root) else {
            report(.missingKey, "the model file is empty; expected 'entities:' with at least one entity", .model, nil)
            return ManagedObjectModel(entities: [])
        }
        guard let fields = fields(of: root, allowed: ModelFileVocabulary.topLevelKeys, element: .model) else {
            return ManagedObjectModel(entities: [])
        }
        var entities: [EntityDescription] = []
        if let entitiesNode = fields["entities"], let mapping = mapping(entitiesNode, "'entities'", .model) {
            for (keyNode, value) in mapping {
                guard let name = keyName(of: keyNode, .model) else { continue }
                entities.append(parseEntity(name, keyNode: keyNode, value: value))
            }
        }
        if entities.isEmpty && errors.isEmpty {
            let node = fields.entries.first { $0.key == "entities" }?.keyNode ?? root
            report(.missingKey, "the model declares no entities; expected 'entities:' with at least one", .model, node)
        }
        var templates: [String: FetchRequestTemplate] = [:]
        if let templatesNode = fields["fetchRequestTemplates"],
            let mapping = mapping(templatesNode, "'fetchRequestTemplates'", .model)
        {
            for (keyNode, value) in mapping {
                guard let name = keyName(of: keyNode, .model) else { continue }
                if let template = parseTemplate(name, keyNode: keyNode, value: value) { templates[name] = template }
            }
        }
        return ManagedObjectModel(entities: entities, fetchRequestTemplates: templates)
    }

    // MARK: - Entities and templates

    private mutating func parseEntity(_ name: String, keyNode: Node, value: Node) -> EntityDescription {
        let element = ModelElement.entity(name)
        sourceMap.record(Self.position(of: keyNode), for: element)
        var entity = EntityDescription(name: name)
        if Self.isNull(value) { return entity }
        guard let fields = fields(of: value, allowed: ModelFileVocabulary.entityKeys, element: element) else {
            sourceMap.markUnreliable(element)
            return entity
        }
        if let node = fields["abstract"] { entity.isAbstract = bool(node, "abstract", element) ?? false }
        if let node = fields["parent"] { entity.parentEntity = text(node, "parent", element) }
        if let node = fields["renamingIdentifier"] {
            entity.renamingIdentifier = text(node, "renamingIdentifier", element)
        }
        var uniqueAttributes: [(name: String, position: ModelFileSourceMap.Position?)] = []
        if let node = fields["attributes"], let mapping = mapping(node, "'attributes'", element) {
            for (keyNode, value) in mapping {
                guard let attributeName = keyName(of: keyNode, element) else { continue }
                let parsed = parseAttribute(attributeName, of: name, keyNode: keyNode, value: value)
                entity.attributes.append(parsed.attribute)
                if let position = parsed.uniquePosition { uniqueAttributes.append((attributeName, position)) }
            }
        }
        if let node = fields["relationships"], let mapping = mapping(node, "'relationships'", element) {
            for (keyNode, value) in mapping {
                guard let relationshipName = keyName(of: keyNode, element) else { continue }
                entity.relationships.append(
                    parseRelationship(relationshipName, of: name, keyNode: keyNode, value: value))
            }
        }
        if let node = fields["fetchedProperties"], let mapping = mapping(node, "'fetchedProperties'", element) {
            for (keyNode, value) in mapping {
                guard let propertyName = keyName(of: keyNode, element) else { continue }
                if let property = parseFetchedProperty(propertyName, of: name, keyNode: keyNode, value: value) {
                    entity.fetchedProperties.append(property)
                }
            }
        }
        // `unique: true` on an attribute is a one-attribute constraint, listed before the explicit ones.
        for (attributeName, position) in uniqueAttributes {
            let key = ModelFileSourceMap.constraintKey(entity.uniquenessConstraints.count)
            sourceMap.record(position, for: element, key: key)
            entity.uniquenessConstraints.append([attributeName])
        }
        if let node = fields["uniquenessConstraints"] {
            for (list, position) in nameLists(node, "uniquenessConstraints", "attribute", element) {
                let key = ModelFileSourceMap.constraintKey(entity.uniquenessConstraints.count)
                sourceMap.record(position, for: element, key: key)
                entity.uniquenessConstraints.append(list)
            }
        }
        if let node = fields["indexes"] {
            for (list, position) in nameLists(node, "indexes", "attribute or relationship", element) {
                sourceMap.record(position, for: element, key: ModelFileSourceMap.indexKey(entity.indexes.count))
                entity.indexes.append(list)
            }
        }
        return entity
    }

    /// Lists of names such as `[[firstName, lastName], [email]]`, each with where it was written.
    private mutating func nameLists(
        _ node: Node, _ key: String, _ noun: String, _ element: ModelElement
    ) -> [([String], ModelFileSourceMap.Position?)] {
        let example = "[[a], [b, c]]"
        guard case .sequence(let outer) = node else {
            report(
                .invalidValue, "'\(key)' must be a list of lists of \(noun) names, such as \(example)", element, node)
            return []
        }
        var lists: [([String], ModelFileSourceMap.Position?)] = []
        for item in outer {
            guard case .sequence(let inner) = item else {
                report(
                    .invalidValue,
                    "each entry of '\(key)' must be a list of \(noun) names, such as \(example); "
                        + "found \(Self.kind(of: item))",
                    element, item)
                continue
            }
            var names: [String] = []
            for nameNode in inner {
                if let name = text(nameNode, key, element) { names.append(name) }
            }
            lists.append((names, Self.position(of: item)))
        }
        return lists
    }

    private mutating func parseTemplate(_ name: String, keyNode: Node, value: Node) -> FetchRequestTemplate? {
        let element = ModelElement.fetchRequestTemplate(name)
        sourceMap.record(Self.position(of: keyNode), for: element)
        guard let fields = fields(of: value, allowed: ModelFileVocabulary.fetchRequestTemplateKeys, element: element)
        else { return nil }
        let entity = fields["entity"].flatMap { text($0, "entity", element) }
        let predicate = fields["predicate"].flatMap { text($0, "predicate", element) }
        if fields["entity"] == nil { report(.missingKey, "missing 'entity': the entity fetched", element, keyNode) }
        if fields["predicate"] == nil {
            report(.missingKey, "missing 'predicate': a format string such as \"price > $MIN\"", element, keyNode)
        }
        guard let entity, let predicate else { return nil }
        return FetchRequestTemplate(entity: entity, predicate: predicate)
    }

    /// `sameCategory: {entity: Product, predicate: "category == $FETCH_SOURCE.category"}`.
    private mutating func parseFetchedProperty(
        _ name: String, of entityName: String, keyNode: Node, value: Node
    ) -> FetchedPropertyDescription? {
        let element = ModelElement.fetchedProperty(entity: entityName, name: name)
        sourceMap.record(Self.position(of: keyNode), for: element)
        guard let fields = fields(of: value, allowed: ModelFileVocabulary.fetchedPropertyKeys, element: element)
        else { return nil }
        let entity = fields["entity"].flatMap { text($0, "entity", element) }
        let predicate = fields["predicate"].flatMap { text($0, "predicate", element) }
        // A misspelt key was reported with a suggestion; it is not reported missing as well.
        if fields["entity"] == nil && !fields.suggestedKeys.contains("entity") {
            report(.missingKey, "missing 'entity': the entity whose objects it fetches", element, keyNode)
        }
        if fields["predicate"] == nil && !fields.suggestedKeys.contains("predicate") {
            report(
                .missingKey, "missing 'predicate': a format string such as \"category == $FETCH_SOURCE.category\"",
                element, keyNode)
        }
        guard let entity, let predicate else { return nil }
        return FetchedPropertyDescription(name: name, destinationEntity: entity, predicate: predicate)
    }

    // MARK: - Mappings and keys

    /// The pairs of a mapping node, in order, or `nil` (reported) when `node` is something else. `null` (an empty
    /// value) reads as an empty mapping.
    mutating func mapping(_ node: Node, _ what: String, _ element: ModelElement) -> Node.Mapping? {
        if Self.isNull(node) { return Node.Mapping([]) }
        guard case .mapping(let mapping) = node else {
            report(
                .invalidValue, "\(what) must be a mapping of names to settings; found \(Self.kind(of: node))",
                element, node)
            return nil
        }
        return mapping
    }

    /// The keys of a mapping of settings, checked against `allowed`; each key's position is recorded.
    mutating func fields(of node: Node, allowed: [String], element: ModelElement) -> ModelFileFields? {
        guard case .mapping(let mapping) = node else {
            report(.invalidValue, "expected a mapping of settings; found \(Self.kind(of: node))", element, node)
            return nil
        }
        var fields = ModelFileFields()
        for (keyNode, value) in mapping {
            guard let key = keyName(of: keyNode, element) else { continue }
            guard allowed.contains(key) else {
                let message =
                    ModelFileVocabulary.misplacedKeyMessage(key, allowed: allowed)
                    ?? NameSuggestion.unknown("key", key, expected: allowed)
                report(.unknownKey, message, element, keyNode)
                if let suggestion = NameSuggestion.suggestion(for: key, among: allowed) {
                    fields.suggestedKeys.insert(suggestion)
                }
                continue
            }
            sourceMap.record(Self.position(of: keyNode), for: element, key: key)
            fields.entries.append((key, keyNode, value))
        }
        return fields
    }

    /// The text of a key node; other keys (lists, mappings) are reported.
    private mutating func keyName(of keyNode: Node, _ element: ModelElement) -> String? {
        guard case .scalar(let scalar) = keyNode else {
            report(.invalidValue, "a key must be a name; found \(Self.kind(of: keyNode))", element, keyNode)
            return nil
        }
        return scalar.string
    }

    // MARK: - Reporting

    /// Records a problem at `node`'s position (or the element's, when there is no node).
    mutating func report(_ code: ModelError.Code, _ message: String, _ element: ModelElement, _ node: Node?) {
        let position = node.flatMap(Self.position(of:)) ?? sourceMap.position(of: element)
        errors.append(
            ModelError(code, message, element: element, file: file, line: position?.line, column: position?.column))
    }

    /// Where `node` starts.
    static func position(of node: Node) -> ModelFileSourceMap.Position? {
        node.mark.map { ModelFileSourceMap.Position(line: $0.line, column: $0.column) }
    }
}

/// The settings of one mapping, in the order written, after unknown keys were reported.
struct ModelFileFields {
    var entries: [(key: String, keyNode: Node, value: Node)] = []
    /// Keys suggested for misspelt ones; a missing required key among them was already reported as the typo.
    var suggestedKeys: Set<String> = []

    /// The value of `key`, if present.
    subscript(_ key: String) -> Node? {
        entries.first { $0.key == key }?.value
    }
}
