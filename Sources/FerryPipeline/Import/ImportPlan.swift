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
    /// The names of the entity's attributes and relationships, inherited ones included: an input column of another
    /// name that no column reads is new to the entity (see ``SchemaContract``).
    let propertyNames: [String]

    /// The positions, among ``columns``, of the key attributes.
    var keyColumnIndexes: [Int] { keys.compactMap { key in columns.firstIndex { $0.name == key } } }

    /// Resolves `spec` against `model`, for inputs whose columns are `inputColumns` (CSV header names; `nil` for
    /// JSON, whose records name their fields). With `storesMemberNames` (see ``MemberNameColumn/isStored(in:input:header:)``)
    /// and no field mappings, the attribute `key` reads the column `_key`.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` naming what does not fit.
    init(spec: ImportSpec, model: ManagedObjectModel, inputColumns: [String]?, storesMemberNames: Bool = false) throws {
        let entity = try Self.entity(of: spec, in: model)
        self.spec = spec
        self.entity = entity
        let attributes = model.allAttributes(of: entity.name).filter { $0.isStored && $0.derivation == nil }
        let relationships = model.allRelationships(of: entity.name)
        let keys = try Self.keys(of: entity, for: spec, in: model)
        let settable = SettableAttributes(entity: entity.name, attributes: attributes, relationships: relationships)
        var columns: [Column] = []
        let fields =
            spec.fields.isEmpty
            ? Self.impliedFields(
                spec: spec, attributes: attributes, inputColumns: inputColumns, storesMemberNames: storesMemberNames)
            : spec.fields
        for field in fields {
            columns.append(try Self.fieldColumn(field, settable: settable, spec: spec))
        }
        for mapping in spec.relationships {
            columns.append(try Self.relationshipColumn(mapping, of: entity.name, in: model))
        }
        for blob in spec.blobs {
            let described = try settable.attribute(blob.attribute, for: "blob column '\(blob.column)'")
            guard described.type == .binary else {
                throw PipelineError(
                    .invalidSpec, "blob column '\(blob.column)': '\(blob.attribute)' is \(described.type), not binary")
            }
            columns.append(try Self.column(described, of: entity.name, source: .blobPath(column: blob.column)))
        }
        for constant in spec.constants {
            let described = try settable.attribute(constant.attribute, for: "constant")
            columns.append(try Self.column(described, of: entity.name, source: .constant(nil)))
        }
        try Self.check(columns, keys: keys, inputColumns: inputColumns)
        self.keys = keys
        self.columns = columns
        propertyNames = model.allAttributes(of: entity.name).map(\.name) + relationships.map(\.name)
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

    /// The names an input column may have without being new to the entity: those the plan reads, and the entity's
    /// attributes and relationships.
    var knownNames: Set<String> { Set(readNames).union(propertyNames) }

    /// Whether an input column named `name` is new to the entity: not known (``knownNames``), and not a name the store
    /// keeps for itself (starting with `_`, such as a rejects file's `_reason`, `_file`, `_record` and `_line`, so
    /// that a rejects file imports again under any contract; such columns are left unread).
    static func isNew(_ name: String, known: Set<String>) -> Bool {
        !known.contains(name) && !name.hasPrefix("_")
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

    static func column(_ attribute: AttributeDescription, of entity: String, source: Source) throws -> Column {
        let rules = try AttributeRules(attribute, of: entity)
        return Column(
            name: attribute.name, type: attribute.type, source: source, rules: rules.checksValues ? rules : nil,
            isMandatory: !attribute.isOptional && attribute.defaultValue == nil)
    }

    private static func converter(for column: Column, options: ConversionOptions) throws -> FieldConverter {
        try converter(
            for: AttributeDescription(name: column.name, type: column.type), options: options, column: column.name)
    }

    static func converter(for attribute: AttributeDescription, options: ConversionOptions, column: String)
        throws -> FieldConverter
    {
        do {
            return try FieldConverter(type: attribute.type, options: options)
        } catch {
            throw PipelineError(.invalidSpec, "field '\(column)' → '\(attribute.name)': \(error.message)")
        }
    }

    /// Converts fixed text (a default, a constant) once, at plan time.
    static func convert(_ text: String, with converter: FieldConverter, column: String) throws
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
