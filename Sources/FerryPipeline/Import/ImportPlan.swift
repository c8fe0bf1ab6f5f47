import FerryIO
import FerryStore
import Foundation

/// An ``ImportSpec`` resolved against the model: the packed columns a chunk carries, and where each one's value
/// comes from. Built once per step; checked before any record is read, so a spec that names an unknown attribute
/// fails with a clear message (exit 78) and touches nothing.
struct ImportPlan: Sendable {
    /// Where one packed column's values come from.
    enum Source: Sendable {
        /// A field converted to the attribute's stored form.
        case field(column: String, converter: FieldConverter, defaultValue: AttributeValue?)
        /// A field holding the natural key of a to-one relationship's destination (text until resolved).
        case relationshipKey(column: String, relationship: ResolvedRelationship)
        /// A field holding the path of a file whose bytes are the value.
        case blobPath(column: String)
        /// The same value on every record.
        case constant(AttributeValue?)
    }

    /// One packed column. A class: the packer and the context writer read every column of every record, and
    /// taking a reference is one retain where copying the struct it was took several, through its enum payloads.
    final class Column: Sendable {
        /// The attribute (or to-one relationship) the column sets.
        let name: String
        let type: AttributeType
        let source: Source
        /// The attribute's value rules, when a value of the right type can still break one.
        let rules: AttributeRules?
        /// Whether a null value refuses the record (non-optional, no default).
        let isMandatory: Bool

        init(name: String, type: AttributeType, source: Source, rules: AttributeRules?, isMandatory: Bool) {
            self.name = name
            self.type = type
            self.source = source
            self.rules = rules
            self.isMandatory = isMandatory
        }
    }

    /// A to-one relationship set by its destination's natural key.
    struct ResolvedRelationship: Sendable {
        let name: String
        let destinationEntity: String
        let destinationTable: String
        let keyAttribute: String
        let onMissing: RelationshipMapping.OnMissing

        var createsMissing: Bool { onMissing == .create }

        /// Why a record whose `key` (in `column`) has no destination is rejected.
        func missingReason(key: String, column: String) -> String {
            "column '\(column)': no \(destinationEntity) has \(keyAttribute) '\(key)' (onMissing: create makes "
                + "missing ones; onMissing: null leaves the relationship empty)"
        }
    }

    let spec: ImportSpec
    let entity: EntityDescription
    /// The key attributes (a uniqueness constraint of the entity); empty when the entity has none (keyless: every
    /// record is a new row).
    let keys: [String]
    /// Whether the entity has no uniqueness constraint, so that every record is inserted as a new row.
    var isKeyless: Bool { keys.isEmpty }
    private(set) var columns: [Column]
    /// Whether a relationship creates the destinations its keys miss (`onMissing: create`).
    var createsDestinations: Bool {
        columns.contains { column in
            if case .relationshipKey(_, let relationship) = column.source { relationship.createsMissing } else { false }
        }
    }
    /// Whether a mandatory attribute without a default has no column: a batch insert then refuses every new row.
    let omitsMandatoryAttribute: Bool

    /// The positions, among ``columns``, of the key attributes.
    var keyColumnIndexes: [Int] { keys.compactMap { key in columns.firstIndex { $0.name == key } } }

    /// Resolves `spec` against `model`, for inputs whose columns are `inputColumns` (CSV header names; `nil` for
    /// JSON, whose records name their fields). With `storesMemberNames` (see ``MemberNameColumn/isStored(in:input:header:)``)
    /// and no field mappings, the attribute `key` reads the column `_key`.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` naming what does not fit.
    init(spec: ImportSpec, model: ManagedObjectModel, inputColumns: [String]?, storesMemberNames: Bool = false) throws {
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
        self.spec = spec
        self.entity = entity
        let attributes = model.allAttributes(of: entity.name).filter { $0.isStored && $0.derivation == nil }
        let relationships = model.allRelationships(of: entity.name)
        let constraints = model.ancestry(of: entity.name).flatMap(\.uniquenessConstraints)
        let keys: [String]
        // `--key _key` names the attribute the member names are stored as.
        let specKeys = spec.keys.map(MemberNameColumn.attribute(forColumn:))
        if specKeys.isEmpty {
            // An entity without a uniqueness constraint is keyless: its records are appended (or replace its rows).
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

        func attribute(_ name: String, for what: String) throws -> AttributeDescription {
            guard let found = attributes.first(where: { $0.name == name }) else {
                let reason =
                    relationships.contains { $0.name == name }
                    ? "is a relationship; map it under relationships with the destination's key"
                    : "is not a stored, settable attribute of \(entity.name)"
                throw PipelineError(.invalidSpec, "\(what): '\(name)' \(reason)")
            }
            return found
        }

        var columns: [Column] = []
        var fields = spec.fields
        if fields.isEmpty {
            // A relationship's column also sets the attribute of its name, when the entity has one.
            let claimed = Set(spec.blobs.map(\.column))
            if spec.isHeaderless {
                // No header names the columns: column N sets the Nth attribute, in the model's order.
                let names = inputColumns ?? attributes.indices.map(Record.positionalName(ofField:))
                fields = zip(names, attributes).filter { !claimed.contains($0.0) }
                    .map { FieldMapping(column: $0.0, attribute: $0.1.name) }
            } else {
                let settable = Set(attributes.map(\.name))
                fields = (inputColumns ?? attributes.map(\.name))
                    .filter { settable.contains($0) && !claimed.contains($0) }
                    .map { FieldMapping(column: $0) }
                if storesMemberNames, settable.contains(MemberNameColumn.attribute),
                    !claimed.contains(MemberNameColumn.column)
                {
                    fields.removeAll { $0.attribute == MemberNameColumn.attribute }
                    fields.append(FieldMapping(column: MemberNameColumn.column, attribute: MemberNameColumn.attribute))
                }
            }
        }
        for field in fields {
            let described = try attribute(field.attribute, for: "field '\(field.column)'")
            var options = spec.conversion
            if let formats = field.dateFormats { options.dateFormats = formats }
            let converter = try Self.converter(for: described, options: options, column: field.column)
            let defaultValue =
                try field.defaultText.map { text in
                    try Self.convert(text, with: converter, column: field.column) ?? described.defaultValue
                } ?? described.defaultValue
            columns.append(
                try Self.column(
                    described, of: entity.name,
                    source: .field(column: field.column, converter: converter, defaultValue: defaultValue)))
        }
        for mapping in spec.relationships {
            guard let relationship = relationships.first(where: { $0.name == mapping.relationship }) else {
                throw PipelineError(
                    .invalidSpec, "relationship '\(mapping.relationship)' is not a relationship of \(entity.name)")
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
            let resolved = ResolvedRelationship(
                name: relationship.name, destinationEntity: relationship.destinationEntity,
                destinationTable: model.rootEntity(of: relationship.destinationEntity), keyAttribute: mapping.key,
                onMissing: mapping.onMissing)
            if mapping.onMissing == .null && !relationship.isOptional {
                throw PipelineError(
                    .invalidSpec,
                    "relationship '\(mapping.relationship)' is not optional, so onMissing: null cannot leave it "
                        + "empty; use reject or create")
            }
            columns.append(
                Column(
                    name: relationship.name, type: .integer64,
                    source: .relationshipKey(column: mapping.column, relationship: resolved), rules: nil,
                    isMandatory: !relationship.isOptional))
        }
        for blob in spec.blobs {
            let described = try attribute(blob.attribute, for: "blob column '\(blob.column)'")
            guard described.type == .binary else {
                throw PipelineError(
                    .invalidSpec, "blob column '\(blob.column)': '\(blob.attribute)' is \(described.type), not binary")
            }
            columns.append(try Self.column(described, of: entity.name, source: .blobPath(column: blob.column)))
        }
        for constant in spec.constants {
            let described = try attribute(constant.attribute, for: "constant")
            columns.append(try Self.column(described, of: entity.name, source: .constant(nil)))
        }
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
        self.keys = keys
        self.columns = columns
        let mapped = Set(columns.map(\.name))
        omitsMandatoryAttribute = attributes.contains {
            !$0.isOptional && $0.defaultValue == nil && !mapped.contains($0.name)
        }
    }

    /// The input columns (or JSON fields) the plan's columns read; constants read none.
    var readNames: [String] {
        columns.compactMap { column in
            switch column.source {
            case .field(let name, _, _), .relationshipKey(let name, _), .blobPath(let name): name
            case .constant: nil
            }
        }
    }

    /// The columns of `names` (an input's header) that no column of the plan reads, in their order.
    func unreadColumns(of names: [String]) -> [String] {
        let read = Set(readNames)
        return names.filter { !read.contains($0) }
    }

    /// The plan with the constants' values for run `runID` started at `runTime`.
    func withConstants(runID: Int64, runTime: Double) throws -> ImportPlan {
        var copy = self
        copy.columns = try columns.map { column in
            guard case .constant = column.source,
                let constant = spec.constants.first(where: { $0.attribute == column.name })
            else { return column }
            let value: AttributeValue? =
                switch constant.value {
                case .runID: column.type == .string ? .string(String(runID)) : .integer(runID)
                case .runTime:
                    column.type == .string
                        ? .string(RunLedger.timestamp(Date(timeIntervalSince1970: runTime)))
                        : .date(Date(timeIntervalSince1970: runTime))
                case .text(let text):
                    try Self.convert(
                        text, with: Self.converter(for: column, options: spec.conversion), column: "constant")
                }
            return Column(
                name: column.name, type: column.type, source: .constant(value), rules: column.rules,
                isMandatory: column.isMandatory)
        }
        return copy
    }

    private static func column(_ attribute: AttributeDescription, of entity: String, source: Source) throws -> Column {
        let rules = try AttributeRules(attribute, of: entity)
        return Column(
            name: attribute.name, type: attribute.type, source: source, rules: rules.checksValues ? rules : nil,
            isMandatory: !attribute.isOptional && attribute.defaultValue == nil)
    }

    private static func converter(for column: Column, options: ConversionOptions) throws -> FieldConverter {
        try converter(
            for: AttributeDescription(name: column.name, type: column.type), options: options, column: column.name)
    }

    private static func converter(for attribute: AttributeDescription, options: ConversionOptions, column: String)
        throws -> FieldConverter
    {
        do {
            return try FieldConverter(type: attribute.type, options: options)
        } catch {
            throw PipelineError(.invalidSpec, "field '\(column)' → '\(attribute.name)': \(error.message)")
        }
    }

    /// Converts fixed text (a default, a constant) once, at plan time.
    private static func convert(_ text: String, with converter: FieldConverter, column: String) throws
        -> AttributeValue?
    {
        var text = text
        let result = text.withUTF8 { converter.value(bytes: UnsafeRawBufferPointer($0), kind: .string) }
        switch result {
        case .success(let value): return value
        case .failure(let failure):
            throw PipelineError(.invalidSpec, "the value given for '\(column)' does not fit: \(failure.message)")
        }
    }
}
