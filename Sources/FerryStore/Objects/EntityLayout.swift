import FerrySQLite

/// Where each property of one entity's managed objects lives in memory, and the SQL that loads its rows.
///
/// An object keeps its values in three arrays indexed by *slot*: attributes (every attribute, inherited ones
/// first, transient and derived included), to-one relationships (as object IDs) and to-many relationships. A
/// layout is built once per entity when the store opens and shared by every context.
final class EntityLayout: Sendable {
    /// A property's place in an object.
    enum Slot: Hashable {
        case attribute(Int)
        case toOne(Int)
        case toMany(Int)
    }

    /// A uniqueness constraint as the save checks it.
    struct Constraint: Hashable {
        /// The entity that declares it (a sub-entity's constraint covers only that sub-entity's rows).
        let declaringEntity: String
        /// The attribute names, as declared.
        let attributeNames: [String]
        /// The attribute slots, in the same order.
        let slots: [Int]
        /// The `_ent` values the constraint covers.
        let entityIDs: [Int]
        /// Tells constraints apart cheaply: the declaring entity's place in the model and the constraint's place
        /// in it.
        let identifier: Int
    }

    let entity: EntityDescription
    /// The entity's name as object IDs hold it, looked up once: each inserted object's temporary ID takes it.
    let objectIDName: ObjectIDName
    let mapping: StoreSchema.EntityMapping
    let attributes: [AttributeDescription]
    let toOne: [RelationshipDescription]
    let toMany: [RelationshipDescription]
    let slots: [String: Slot]
    /// The to-one relationships' columns, by to-one slot.
    let foreignKeys: [StoreSchema.ForeignKey]
    /// Slots of the attributes with a column (derived ones included): what a load reads.
    let storedAttributeSlots: [Int]
    /// Slots of the attributes a save writes: stored and not derived (the store maintains derived ones).
    let writableAttributeSlots: [Int]
    /// Slots of the derived attributes, which a save reads back.
    let derivedAttributeSlots: [Int]
    /// Each attribute's default value, by slot: a new object's values.
    let defaultValues: [AttributeValue?]
    /// A nil for every attribute slot: a fault's values, shared by every fault until one is loaded (no array made
    /// per object).
    let nilValues: [AttributeValue?]
    /// Every uniqueness constraint that applies, inherited ones first.
    let constraints: [Constraint]
    /// `"_pk", "_ent", "_opt", <stored attributes>, <to-one columns, each followed by its _ent column if any>`.
    let selectColumns: String
    /// `INSERT INTO <table> ("_pk", "_ent", "_opt", <writable attributes>, <to-one columns>) VALUES (?, ?, 1, …)`.
    let insertSQL: String

    var name: String { entity.name }
    var table: String { mapping.table }

    init(entity: EntityDescription, schema: StoreSchema) {
        let model = schema.model
        guard let mapping = schema.mapping(for: entity.name) else {
            preconditionFailure("the schema has no mapping for \(entity.name)")
        }
        self.entity = entity
        objectIDName = ObjectIDName(entity.name)
        self.mapping = mapping
        let attributes = model.allAttributes(of: entity.name)
        self.attributes = attributes
        defaultValues = attributes.map(\.defaultValue)
        nilValues = Array(repeating: nil, count: attributes.count)
        let relationships = model.allRelationships(of: entity.name)
        let toOne = relationships.filter { !$0.isToMany }
        self.toOne = toOne
        toMany = relationships.filter(\.isToMany)
        var slots: [String: Slot] = [:]
        for (index, attribute) in attributes.enumerated() { slots[attribute.name] = .attribute(index) }
        for (index, relationship) in toOne.enumerated() { slots[relationship.name] = .toOne(index) }
        for (index, relationship) in toMany.enumerated() { slots[relationship.name] = .toMany(index) }
        self.slots = slots
        let foreignKeys = toOne.map { relationship in
            guard let key = mapping.foreignKeys[relationship.name] else {
                preconditionFailure("no foreign key for \(entity.name).\(relationship.name)")
            }
            return key
        }
        self.foreignKeys = foreignKeys
        let storedAttributeSlots = attributes.indices.filter { attributes[$0].isStored }
        self.storedAttributeSlots = storedAttributeSlots
        let writableAttributeSlots = attributes.indices.filter {
            attributes[$0].isStored && attributes[$0].derivation == nil
        }
        self.writableAttributeSlots = writableAttributeSlots
        derivedAttributeSlots = attributes.indices.filter { attributes[$0].derivation != nil }
        constraints = model.ancestry(of: entity.name).flatMap { declaring in
            let entityIndex = model.entities.firstIndex { $0.name == declaring.name } ?? 0
            return declaring.uniquenessConstraints.enumerated().map { index, names in
                Constraint(
                    declaringEntity: declaring.name, attributeNames: names,
                    slots: names.compactMap { name in attributes.firstIndex { $0.name == name } },
                    entityIDs: schema.mapping(for: declaring.name)?.hierarchyIDs ?? [],
                    identifier: entityIndex << 16 | index)
            }
        }
        var columns = ["_pk", "_ent", "_opt"] + storedAttributeSlots.map { attributes[$0].name }
        for key in foreignKeys {
            columns.append(key.column)
            if let entityColumn = key.entityColumn { columns.append(entityColumn) }
        }
        selectColumns = columns.map(SQL.identifier).joined(separator: ", ")
        let insertColumns =
            ["_pk", "_ent", "_opt"] + writableAttributeSlots.map { attributes[$0].name }
            + columns.dropFirst(3 + storedAttributeSlots.count)
        let values = ["?", "?", "1"] + Array(repeating: "?", count: insertColumns.count - 3)
        insertSQL =
            "INSERT INTO \(SQL.identifier(mapping.table)) (\(insertColumns.map(SQL.identifier).joined(separator: ", "))) "
            + "VALUES (\(values.joined(separator: ", ")))"
    }

    /// The slot of the property `key`; a key the entity does not have is a programming error and traps.
    func slot(of key: String) -> Slot {
        guard let slot = slots[key] else {
            preconditionFailure("\(entity.name) has no property '\(key)'")
        }
        return slot
    }
}

/// The layouts of every entity of a schema.
struct ObjectLayouts: Sendable {
    let byEntity: [String: EntityLayout]
    /// The same layouts by the entity's name as object IDs hold it: an object's layout without hashing its name.
    let byObjectIDName: [ObjectIDName: EntityLayout]
    /// Whether any entity has a to-one relationship: without one, no object holds another's ID in its values.
    let hasToOne: Bool
    /// Whether any entity has a to-many relationship.
    let hasToMany: Bool

    init(schema: StoreSchema) {
        var layouts: [String: EntityLayout] = [:]
        for entity in schema.model.entities {
            layouts[entity.name] = EntityLayout(entity: entity, schema: schema)
        }
        byEntity = layouts
        byObjectIDName = Dictionary(uniqueKeysWithValues: layouts.values.map { ($0.objectIDName, $0) })
        hasToOne = layouts.values.contains { !$0.toOne.isEmpty }
        hasToMany = layouts.values.contains { !$0.toMany.isEmpty }
    }

    /// The layout of `entity`; an unknown entity is a programming error and traps.
    subscript(entity: String) -> EntityLayout {
        guard let layout = byEntity[entity] else { preconditionFailure("the model has no entity '\(entity)'") }
        return layout
    }

    /// The layout of `entity`, an object ID's entity; an unknown entity is a programming error and traps.
    subscript(entity: ObjectIDName) -> EntityLayout {
        guard let layout = byObjectIDName[entity] else {
            preconditionFailure("the model has no entity '\(entity.text)'")
        }
        return layout
    }
}
