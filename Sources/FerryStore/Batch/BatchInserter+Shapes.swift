import FerrySQLite
import Foundation

extension BatchInserter {
    /// The prepared INSERT for rows that give exactly `names` (in that parameter order), preparing it on first use.
    ///
    /// `INSERT INTO "T" ("_ent", <given>, <omitted with defaults>[, "_pk"]) VALUES (<entity>, ?, …) [ON CONFLICT …]
    /// RETURNING "_pk", "_opt", "_ent"`. The defaults are bound here, once: resetting a statement keeps its
    /// bindings, and rows only ever rebind the given parameters. On an upsert, only the given columns change, and
    /// only when one of them differs from the stored value.
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` for a name that is not a settable attribute; ``SQLiteError``
    ///   when the statement does not prepare.
    mutating func shape(for names: [String], settingForeignKeys: Bool = false) throws -> Shape {
        if let shape = shapes[names] { return shape }
        let given = try names.map { try settingForeignKeys ? settableColumn(named: $0) : attribute(named: $0) }
        let givenNames = Set(names)
        // Derived attributes are the store's to maintain: a batch insert neither sets nor defaults them.
        let omitted = mapping.attributes.filter { !givenNames.contains($0.name) && $0.derivation == nil }
        let defaulted = omitted.filter { $0.defaultValue != nil }
        let keyColumns = nextPrimaryKey == nil ? [] : ["_pk"]
        let columns = ["_ent"] + names + defaulted.map(\.name) + keyColumns
        // Every column but `_ent` is a parameter; `_pk`, when chosen here, is the last one.
        let parameters = Array(repeating: "?", count: columns.count - 1)
        let primaryKeyParameter = keyColumns.isEmpty ? nil : columns.count - 1
        var sql =
            "INSERT INTO \(SQL.identifier(mapping.table)) (\(columns.map(SQL.identifier).joined(separator: ", "))) "
            + "VALUES (\(([String(mapping.entityID)] + parameters).joined(separator: ", ")))"
        switch action {
        case .fail, .unsupported:
            break
        case .ignore:
            sql += " ON CONFLICT DO NOTHING"
        case .update:
            let version = SQL.identifier("_opt")
            for target in conflictTargets {
                // The key that collided already holds the given values: setting it again would make SQLite delete
                // and re-insert its index entry.
                let updated = names.filter { !target.columns.contains($0) }
                let assignments =
                    updated.map { SQL.identifier($0) + " = excluded." + SQL.identifier($0) }
                    + ["\(version) = \(version) + 1"]
                // A row whose given attributes already hold the given values is left alone: no `_opt` bump, no
                // history, and no RETURNING row, so a re-run of the same input reports it unchanged.
                let changed = updated.map { SQL.identifier($0) + " IS NOT excluded." + SQL.identifier($0) }
                sql += " ON CONFLICT \(target.sql) DO "
                sql +=
                    changed.isEmpty
                    ? "NOTHING"
                    : "UPDATE SET " + assignments.joined(separator: ", ") + " WHERE "
                        + changed.joined(separator: " OR ")
            }
        }
        // An upsert's row may be new or updated. With a single uniqueness constraint the row gives, `changes` and
        // the last rowid tell which, and a probe by key finds an updated row's key; otherwise RETURNING does (which
        // SQLite runs through an ephemeral table per execution, several times slower).
        let keyProbe = action == .update ? try keyProbe(for: names) : nil
        if action == .update && keyProbe == nil {
            sql += " RETURNING " + ["_pk", "_opt", "_ent"].map(SQL.identifier).joined(separator: ", ")
        }
        let statement = try connection.prepare(sql)
        for (offset, attribute) in defaulted.enumerated() {
            try statement.bind(attribute.defaultValue, as: attribute.type, at: names.count + offset + 1)
        }
        let shape = Shape(
            statement: statement, names: names, types: given.map(\.type), optional: given.map(\.isOptional),
            external: given.map(\.allowsExternalStorage),
            omittedMandatory: omitted.filter { !$0.isOptional && $0.defaultValue == nil }.map(\.name),
            primaryKeyParameter: primaryKeyParameter, historyProperties: HistoryRecorder.propertyList(names),
            keyProbe: keyProbe)
        shapes[names] = shape
        return shape
    }

    /// `SELECT _pk[, _ent] FROM "T" WHERE <key> = ? …` for the entity's only uniqueness constraint when `names`
    /// gives all its attributes, with their offsets in `names`; `nil` when the entity has several constraints (an
    /// upsert could then meet any of them) or the row does not give the whole key.
    private func keyProbe(for names: [String]) throws -> Shape.KeyProbe? {
        let declaring = schema.model.ancestry(of: mapping.entity).filter { !$0.uniquenessConstraints.isEmpty }
        guard declaring.count == 1, let owner = declaring.first, owner.uniquenessConstraints.count == 1,
            let key = owner.uniquenessConstraints.first,
            let offsets = Optional(key.compactMap { names.firstIndex(of: $0) }), offsets.count == key.count
        else { return nil }
        let conditions = key.map { SQL.identifier($0) + " = ?" }.joined(separator: " AND ")
        let table = SQL.identifier(mapping.table)
        // A table that holds one entity answers from the uniqueness index alone (it holds the key and `_pk`):
        // reading `_ent` would take a second descent, into the table, per updated row.
        if schema.isSingleEntityTable(mapping.table) {
            let statement = try connection.prepare("SELECT _pk FROM \(table) WHERE \(conditions)")
            return Shape.KeyProbe(statement: statement, offsets: offsets, entityID: mapping.entityID)
        }
        // The row the upsert met may be of any entity the constraint covers: the hierarchy of the entity that
        // declares it (the whole table for the root's), not only the inserted entity's.
        let ids = (schema.mapping(for: owner.name)?.hierarchyIDs ?? mapping.hierarchyIDs).map(String.init)
        let statement = try connection.prepare(
            "SELECT _pk, _ent FROM \(table) WHERE \(conditions) AND _ent IN (\(ids.joined(separator: ", ")))")
        return Shape.KeyProbe(statement: statement, offsets: offsets, entityID: nil)
    }

    /// Binds one row's value of the shape's attribute number `offset` (from 0), checking it against the attribute:
    /// nil only in an optional attribute, otherwise a value of the attribute's type.
    ///
    /// No allocation for integers, doubles, booleans, dates, strings or blobs (decimals and UUIDs are turned into
    /// text first).
    /// - Throws: ``StoreError`` `.missingMandatoryProperty` or `.invalidBatchRequest`; ``SQLiteError``.
    func bind(_ value: AttributeValue?, in shape: Shape, at offset: Int) throws {
        let index = offset + 1
        guard let value else {
            guard shape.optional[offset] else {
                throw StoreError(
                    .missingMandatoryProperty,
                    "batch insert into \(mapping.entity): row \(rowNumber) gives nil for the non-optional attribute "
                        + "'\(shape.names[offset])'")
            }
            return try shape.statement.bindNull(at: index)
        }
        let type = shape.types[offset]
        guard value.isStorable(as: type) else {
            throw StoreError(
                .invalidBatchRequest,
                "batch insert into \(mapping.entity): row \(rowNumber) gives \(value.kindName) for "
                    + "'\(shape.names[offset])', which is \(type.attributeDescription)")
        }
        switch value {
        case .binary(let data), .transformable(let data):
            // Borrowed bytes, which SQLite copies: the shared encoder would first copy them into an array.
            try data.withUnsafeBytes { try bindBlob($0, in: shape, at: offset) }
        default:
            try shape.statement.bind(value, as: type, at: index)
        }
    }

    /// The stored, settable attribute `name`, or the to-one relationship `name` as an integer64 "attribute" whose
    /// value is the destination's primary key (packed rows only: the importer resolves natural keys to primary
    /// keys itself, a step past Core Data's batch insert, which sets attributes only).
    ///
    /// - Throws: as ``attribute(named:)``; `.invalidBatchRequest` for a relationship to an entity with sub-entities
    ///   (its rows would need the destination's `_ent` too).
    func settableColumn(named name: String) throws -> AttributeDescription {
        guard let foreignKey = mapping.foreignKeys[name] else { return try attribute(named: name) }
        guard foreignKey.entityColumn == nil else {
            throw StoreError(
                .invalidBatchRequest,
                "batch insert into \(mapping.entity): '\(name)' leads to \(foreignKey.destinationEntity), which has "
                    + "sub-entities; set it through a context")
        }
        let relationship = schema.model.allRelationships(of: mapping.entity).first { $0.name == name }
        return AttributeDescription(name: name, type: .integer64, isOptional: relationship?.isOptional ?? true)
    }

    /// Binds the bytes of a binary (or transformable) value of the shape's attribute number `offset`: as the
    /// reference to their file when the attribute allows external storage and they are larger than the threshold,
    /// otherwise inline. Small values cost one comparison more.
    ///
    /// - Throws: ``StoreError`` `.blobFileFailed`; ``SQLiteError``.
    @inline(__always)
    func bindBlob(_ bytes: UnsafeRawBufferPointer, in shape: Shape, at offset: Int) throws {
        if let blobs, shape.external[offset], blobs.externalizes(bytes.count) {
            try shape.statement.bind(try blobs.store(bytes).storedText, at: offset + 1)
        } else {
            try shape.statement.bindBlob(bytes, at: offset + 1)
        }
    }

    /// The stored, settable attribute `name` of the entity.
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` when `name` is unknown, a relationship (batch inserts set
    ///   attributes only, as in Core Data), transient or derived.
    func attribute(named name: String) throws -> AttributeDescription {
        let entity = mapping.entity
        if let attribute = mapping.attributes.first(where: { $0.name == name }) {
            guard attribute.derivation == nil else {
                throw StoreError(
                    .invalidBatchRequest,
                    "batch insert into \(entity): '\(name)' is a derived attribute, which the store maintains")
            }
            return attribute
        }
        let model = schema.model
        if model.allRelationships(of: entity).contains(where: { $0.name == name }) {
            throw StoreError(
                .invalidBatchRequest,
                "batch insert into \(entity): '\(name)' is a relationship; batch inserts set attributes only")
        }
        if model.allAttributes(of: entity).contains(where: { $0.name == name }) {
            throw StoreError(
                .invalidBatchRequest, "batch insert into \(entity): '\(name)' is transient, so it has no column")
        }
        throw StoreError(.invalidBatchRequest, "batch insert into \(entity): the entity has no attribute '\(name)'")
    }
}
