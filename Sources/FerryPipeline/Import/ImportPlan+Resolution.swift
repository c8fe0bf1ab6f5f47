import FerryIO
import FerryStore

/// The phases of resolving an import spec against the model, each refusing what does not fit with
/// ``PipelineError`` `.invalidSpec` naming it: the entity, the key, the fields a spec without mappings implies, and
/// one column per field, relationship, blob and constant.
extension ImportPlan {
    /// The attributes a field, blob or constant may set, and why another name may not be set.
    struct SettableAttributes {
        let entity: String
        let attributes: [AttributeDescription]
        let relationships: [RelationshipDescription]

        /// The attribute `name`, which `what` (a field, a blob column…) sets.
        func attribute(_ name: String, for what: String) throws -> AttributeDescription {
            guard let found = attributes.first(where: { $0.name == name }) else {
                let reason =
                    relationships.contains { $0.name == name }
                    ? "is a relationship; map it under relationships with the destination's key"
                    : "is not a stored, settable attribute of \(entity)"
                throw PipelineError(.invalidSpec, "\(what): '\(name)' \(reason)")
            }
            return found
        }
    }

    /// The entity `spec` imports into: in the model, not abstract, and able to take the spec's merge policy.
    static func entity(of spec: ImportSpec, in model: ManagedObjectModel) throws -> EntityDescription {
        guard let entity = model.entity(named: spec.entity) else {
            throw PipelineError(
                .invalidSpec,
                "the model has no entity '\(spec.entity)' (it has \(model.entities.map(\.name).joined(separator: ", ")))"
            )
        }
        guard !entity.isAbstract else {
            throw PipelineError(.invalidSpec, "'\(spec.entity)' is abstract; import into one of its sub-entities")
        }
        guard spec.mode != .batch || spec.mergePolicy != .overwrite else {
            throw PipelineError(
                .invalidSpec,
                "the overwrite merge policy works in context mode only (in batch mode it would delete stored rows "
                    + "that other rows may refer to); use mode: context or mergePolicy: objectTrump")
        }
        return entity
    }

    /// The key records are matched to rows by: the spec's, which must be a uniqueness constraint of `entity`, or
    /// its first constraint; none for an entity without one (keyless: records are appended, or replace its rows).
    static func keys(of entity: EntityDescription, for spec: ImportSpec, in model: ManagedObjectModel) throws
        -> [String]
    {
        let constraints = model.ancestry(of: entity.name).flatMap(\.uniquenessConstraints)
        let keys: [String]
        // `--key _key` names the attribute the member names are stored as.
        let specKeys = spec.keys.map(MemberNameColumn.attribute(forColumn:))
        if specKeys.isEmpty {
            if let first = constraints.first {
                keys = first
            } else {
                guard spec.fullSync == nil else {
                    throw PipelineError(
                        .invalidSpec,
                        "'\(entity.name)' has no uniqueness constraint, so a full sync cannot match records to rows; "
                            + "add one to the model (uniquenessConstraints) and name it as the key")
                }
                keys = []
            }
        } else {
            guard constraints.contains(where: { Set($0) == Set(specKeys) }) else {
                let known = constraints.map { $0.joined(separator: ",") }.joined(separator: "; ")
                throw PipelineError(
                    .invalidSpec,
                    "the key \(spec.keys.joined(separator: ",")) is not a uniqueness constraint of \(entity.name)"
                        + (known.isEmpty ? " (it has none)" : " (its constraints: \(known))"))
            }
            keys = specKeys
        }
        guard !spec.replacesRows || keys.isEmpty else {
            throw PipelineError(
                .invalidSpec,
                "replace is for an entity without a uniqueness constraint, whose records are appended; "
                    + "\(entity.name)'s records are matched to its rows by \(keys.joined(separator: ",")): to delete "
                    + "the rows the input lacks, use fullSync")
        }
        return keys
    }

    /// The fields a spec without field mappings reads: every input column named like a settable attribute (column N
    /// sets the Nth attribute when no header names them), but for blob columns; with `storesMemberNames`, the
    /// attribute `key` from the member names' column.
    static func impliedFields(
        spec: ImportSpec, attributes: [AttributeDescription], inputColumns: [String]?, storesMemberNames: Bool
    ) -> [FieldMapping] {
        // A relationship's column also sets the attribute of its name, when the entity has one.
        let claimed = Set(spec.blobs.map(\.column))
        if spec.isHeaderless {
            // No header names the columns: column N sets the Nth attribute, in the model's order.
            let names = inputColumns ?? attributes.indices.map(Record.positionalName(ofField:))
            return zip(names, attributes).filter { !claimed.contains($0.0) }
                .map { FieldMapping(column: $0.0, attribute: $0.1.name) }
        }
        let settable = Set(attributes.map(\.name))
        var fields = (inputColumns ?? attributes.map(\.name))
            .filter { settable.contains($0) && !claimed.contains($0) }
            .map { FieldMapping(column: $0) }
        if storesMemberNames, settable.contains(MemberNameColumn.attribute), !claimed.contains(MemberNameColumn.column) {
            fields.removeAll { $0.attribute == MemberNameColumn.attribute }
            fields.append(FieldMapping(column: MemberNameColumn.column, attribute: MemberNameColumn.attribute))
        }
        return fields
    }

    /// The column `field` fills: its attribute, the converter its text goes through, and its default.
    static func fieldColumn(_ field: FieldMapping, settable: SettableAttributes, spec: ImportSpec) throws -> Column {
        let described = try settable.attribute(field.attribute, for: "field '\(field.column)'")
        var options = spec.conversion
        if let formats = field.dateFormats { options.dateFormats = formats }
        let converter = try Self.converter(for: described, options: options, column: field.column)
        let defaultValue =
            try field.defaultText.map { text in
                try Self.convert(text, with: converter, column: field.column) ?? described.defaultValue
            } ?? described.defaultValue
        return try Self.column(
            described, of: settable.entity,
            source: .field(column: field.column, converter: converter, defaultValue: defaultValue))
    }

    /// The column a to-one relationship of `entity` is set by: the destination's natural key, an attribute with a
    /// uniqueness constraint of its own.
    static func relationshipColumn(_ mapping: RelationshipMapping, of entity: String, in model: ManagedObjectModel)
        throws -> Column
    {
        guard let relationship = model.allRelationships(of: entity).first(where: { $0.name == mapping.relationship })
        else {
            throw PipelineError(
                .invalidSpec, "relationship '\(mapping.relationship)' is not a relationship of \(entity)")
        }
        guard !relationship.isToMany else {
            throw PipelineError(
                .invalidSpec,
                "relationship '\(mapping.relationship)' is to-many; only to-one relationships are set by key")
        }
        if let named = mapping.destinationEntity, named != relationship.destinationEntity {
            throw PipelineError(
                .invalidSpec,
                "relationship '\(mapping.relationship)' leads to \(relationship.destinationEntity), not \(named)")
        }
        guard model.subentities(of: relationship.destinationEntity).isEmpty else {
            throw PipelineError(
                .invalidSpec,
                "relationship '\(mapping.relationship)' leads to \(relationship.destinationEntity), which has "
                    + "sub-entities; a natural key cannot tell which one to create")
        }
        let destinationAttributes = model.allAttributes(of: relationship.destinationEntity)
        guard destinationAttributes.contains(where: { $0.name == mapping.key && $0.isStored }) else {
            throw PipelineError(
                .invalidSpec,
                "relationship '\(mapping.relationship)': \(relationship.destinationEntity) has no stored "
                    + "attribute '\(mapping.key)' to match by")
        }
        // A key that is not unique would link a record to an arbitrary one of its matches.
        guard model.allUniquenessConstraints(of: relationship.destinationEntity).contains([mapping.key]) else {
            throw PipelineError(
                .invalidSpec,
                "relationship '\(mapping.relationship)': '\(mapping.key)' is not unique in "
                    + "\(relationship.destinationEntity); 'by' must name an attribute with a uniqueness constraint "
                    + "of its own (add uniquenessConstraints: [[\(mapping.key)]] to the entity)")
        }
        if mapping.onMissing == .null && !relationship.isOptional {
            throw PipelineError(
                .invalidSpec,
                "relationship '\(mapping.relationship)' is not optional, so onMissing: null cannot leave it "
                    + "empty; use reject or create")
        }
        let resolved = ResolvedRelationship(
            name: relationship.name, destinationEntity: relationship.destinationEntity,
            destinationTable: model.rootEntity(of: relationship.destinationEntity), keyAttribute: mapping.key,
            onMissing: mapping.onMissing)
        return Column(
            name: relationship.name, type: .integer64,
            source: .relationshipKey(column: mapping.column, relationship: resolved), rules: nil,
            isMandatory: !relationship.isOptional)
    }

    /// Refuses two mappings of one attribute, and a key attribute no column fills.
    static func check(_ columns: [Column], keys: [String], inputColumns: [String]?) throws {
        var seen: Set<String> = []
        for column in columns where !seen.insert(column.name).inserted {
            throw PipelineError(.invalidSpec, "'\(column.name)' is set by more than one mapping")
        }
        for key in keys where !columns.contains(where: { $0.name == key }) {
            throw PipelineError(
                .invalidSpec,
                "the key attribute '\(key)' is not mapped from any column"
                    + (inputColumns.map { " (the input's columns: \($0.joined(separator: ", ")))" } ?? ""))
        }
    }
}
