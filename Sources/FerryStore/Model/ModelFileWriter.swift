extension ManagedObjectModel {
    /// The model as the text of a model file, in the format ``load(from:)`` reads, so that a model built in Swift
    /// or inferred from data can be kept (a store keeps its model this way: see
    /// ``PersistentStore/storedModel(at:)``) and read back.
    ///
    /// ```swift
    /// let text = model.modelFileYAML
    /// let again = try ManagedObjectModel(yaml: text)  // again == model, same versionHash
    /// ```
    ///
    /// Reading the text back gives an equal model for every model that ``validate()`` accepts and whose numbers
    /// are finite (a model file cannot spell infinity or NaN). The text is deterministic: entities, properties,
    /// uniqueness constraints and indexes in model order, fetch request templates by name, each property's settings
    /// in a fixed order and only where they differ from the format's defaults (a property with none left is written
    /// in its short form, `description: string`). Names and texts are quoted where YAML would otherwise read them
    /// differently (`"null"`, `"yes"`, text with `:`, `#`, quotes, spaces at either end, control characters…).
    /// Comments and the `unique: true` shorthand of a hand-written file are not kept: constraints are all written
    /// under `uniquenessConstraints`, in model order.
    public var modelFileYAML: String {
        var writer = ModelFileWriter()
        writer.write(self)
        return writer.text
    }
}

/// Writes a ``ManagedObjectModel`` as model-file YAML (see ``ManagedObjectModel/modelFileYAML``): block mappings for
/// the structure, one flow mapping per property.
struct ModelFileWriter {
    /// The lines written so far.
    private(set) var lines: [String] = []

    /// The text: the lines, each ended by a newline.
    var text: String {
        lines.map { $0 + "\n" }.joined()
    }

    /// Writes the whole model.
    mutating func write(_ model: ManagedObjectModel) {
        lines.append("entities:")
        for entity in model.entities { write(entity) }
        guard !model.fetchRequestTemplates.isEmpty else { return }
        lines.append("fetchRequestTemplates:")
        for (name, template) in model.fetchRequestTemplates.sorted(by: { $0.key < $1.key }) {
            let settings = [("entity", Self.name(template.entity)), ("predicate", Self.text(template.predicate))]
            lines.append("  \(Self.name(name)): \(Self.flowMapping(settings))")
        }
    }

    // MARK: - Entities

    private mutating func write(_ entity: EntityDescription) {
        let isEmpty =
            !entity.isAbstract && entity.parentEntity == nil && entity.attributes.isEmpty
            && entity.relationships.isEmpty && entity.uniquenessConstraints.isEmpty && entity.indexes.isEmpty
            && entity.renamingIdentifier == nil && entity.fetchedProperties.isEmpty
        guard !isEmpty else {
            lines.append("  \(Self.name(entity.name)): {}")
            return
        }
        lines.append("  \(Self.name(entity.name)):")
        if entity.isAbstract { lines.append("    abstract: true") }
        if let parent = entity.parentEntity { lines.append("    parent: \(Self.name(parent))") }
        if let old = entity.renamingIdentifier { lines.append("    renamingIdentifier: \(Self.name(old))") }
        if !entity.attributes.isEmpty {
            lines.append("    attributes:")
            for attribute in entity.attributes {
                lines.append("      \(Self.name(attribute.name)): \(Self.settings(of: attribute))")
            }
        }
        if !entity.relationships.isEmpty {
            lines.append("    relationships:")
            for relationship in entity.relationships {
                lines.append("      \(Self.name(relationship.name)): \(Self.settings(of: relationship))")
            }
        }
        if !entity.uniquenessConstraints.isEmpty {
            lines.append("    uniquenessConstraints: \(Self.nameLists(entity.uniquenessConstraints))")
        }
        if !entity.indexes.isEmpty {
            lines.append("    indexes: \(Self.nameLists(entity.indexes))")
        }
        if !entity.fetchedProperties.isEmpty {
            lines.append("    fetchedProperties:")
            for property in entity.fetchedProperties {
                let settings = [
                    ("entity", Self.name(property.destinationEntity)), ("predicate", Self.text(property.predicate)),
                ]
                lines.append("      \(Self.name(property.name)): \(Self.flowMapping(settings))")
            }
        }
    }

    /// `[[a], [b, c]]`.
    private static func nameLists(_ lists: [[String]]) -> String {
        "[" + lists.map { "[" + $0.map(name).joined(separator: ", ") + "]" }.joined(separator: ", ") + "]"
    }

    // MARK: - Properties

    /// An attribute's value in the file: its type alone when nothing else differs from the defaults, else a flow
    /// mapping of the settings that do, in the order the format lists them.
    static func settings(of attribute: AttributeDescription) -> String {
        var settings: [(String, String)] = [("type", attribute.type.name)]
        if case .transformable(let transformer) = attribute.type { settings.append(("transformer", text(transformer))) }
        if let valueType = attribute.valueTypeName { settings.append(("valueType", text(valueType))) }
        if !attribute.isOptional { settings.append(("optional", "false")) }
        if let value = attribute.defaultValue { settings.append(("default", spelling(of: value))) }
        if attribute.isTransient { settings.append(("transient", "true")) }
        if attribute.isIndexed { settings.append(("indexed", "true")) }
        if let min = attribute.minValue { settings.append(("min", spelling(ofBound: min, type: attribute.type))) }
        if let max = attribute.maxValue { settings.append(("max", spelling(ofBound: max, type: attribute.type))) }
        if let minLength = attribute.minLength { settings.append(("minLength", String(minLength))) }
        if let maxLength = attribute.maxLength { settings.append(("maxLength", String(maxLength))) }
        if let regex = attribute.regularExpression { settings.append(("regex", text(regex))) }
        if attribute.allowsExternalStorage { settings.append(("allowsExternalStorage", "true")) }
        if let derivation = attribute.derivation { settings.append(("derivation", text(derivation))) }
        if let precision = attribute.decimalPrecision { settings.append(("precision", String(precision))) }
        if let scale = attribute.decimalScale { settings.append(("scale", String(scale))) }
        if let old = attribute.renamingIdentifier { settings.append(("renamingIdentifier", name(old))) }
        return settings.count == 1 ? attribute.type.name : flowMapping(settings)
    }

    /// A relationship's value in the file: its destination alone for a to-one, optional, nullify relationship
    /// without an inverse, else a flow mapping of the settings that differ from the defaults.
    static func settings(of relationship: RelationshipDescription) -> String {
        var settings: [(String, String)] = [("to", name(relationship.destinationEntity))]
        if let inverse = relationship.inverseName { settings.append(("inverse", name(inverse))) }
        if relationship.isToMany { settings.append(("toMany", "true")) }
        if relationship.isOrdered { settings.append(("ordered", "true")) }
        if !relationship.isOptional { settings.append(("optional", "false")) }
        if relationship.deleteRule != .nullify { settings.append(("deleteRule", relationship.deleteRule.rawValue)) }
        if relationship.minCount != 0 { settings.append(("minCount", String(relationship.minCount))) }
        if relationship.maxCount != 0 { settings.append(("maxCount", String(relationship.maxCount))) }
        if let old = relationship.renamingIdentifier { settings.append(("renamingIdentifier", name(old))) }
        return settings.count == 1 ? name(relationship.destinationEntity) : flowMapping(settings)
    }

    /// `{ key: value, key: value }`; the values are already spelled.
    private static func flowMapping(_ settings: [(String, String)]) -> String {
        "{ " + settings.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + " }"
    }
}
