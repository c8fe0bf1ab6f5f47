import FerrySQLite
import Foundation

/// Compares a store's model with a new one and works out the migration: which table each new table comes from,
/// which column each new column carries, what is renamed, added, removed, and what the data must satisfy first.
///
/// Matching follows Core Data's lightweight rules: an element of the new model matches the old element named by its
/// `renamingIdentifier` when the old model has one so named, else the old element of the same name. Columns are
/// matched within a table, so properties may move up or down a hierarchy. A change it cannot carry out with SQL in
/// place (a type change Ferry cannot convert, splitting an entity, moving one to another hierarchy) throws before
/// anything is touched, naming the change.
struct MigrationPlanner {
    /// The store's layout, with its entity numbers.
    let source: StoreSchema
    /// The new model.
    let model: ManagedObjectModel
    /// A connection to the store, to count rows and run the checks (read only).
    let connection: Connection
    /// What the checks do with rows that break a new rule.
    let policy: ViolationPolicy
    /// Values of an attribute newly allowed external storage larger than this many bytes move to blob files.
    var externalStorageThreshold = PersistentStoreDescription.defaultExternalStorageThreshold
    /// The formats a text converting to a date may be in, tried in order.
    var dateFormats: [DateFormat] = [.iso8601]

    var steps: [MigrationStep] = []
    var checks: [MigrationCheck] = []
    /// Each new entity's old name, when it had one.
    var oldNames: [String: String] = [:]
    /// Rows the violation policy removes.
    var rejections: [Rejection] = []
    /// Derived attributes (`Entity.attribute`) whose values are recomputed.
    var derivations: [String] = []
    /// Relationships whose links move to another storage.
    var relationshipMoves: [RelationshipMove] = []
    /// The old storage (`table.column`, join table names) that moves read: not data removed when it goes.
    var consumedStorage: Set<String> = []

    init(source: StoreSchema, model: ManagedObjectModel, connection: Connection, policy: ViolationPolicy) {
        self.source = source
        self.model = model
        self.connection = connection
        self.policy = policy
    }

    /// Plans the migration.
    ///
    /// - Throws: ``MigrationError`` `.notInferable` naming the first change that cannot be inferred; `SQLiteError`
    ///   when the store cannot be read.
    mutating func plan() throws -> MigrationPlan {
        try matchEntities()
        let destination = StoreSchema(model: model, entityIDs: entityIDs())
        try planRelationshipMoves(destination: destination)
        var tables: [TableMigration] = []
        var usedSourceTables: Set<String> = []
        for root in model.entities where root.parentEntity == nil {
            let table = try planTable(root.name, destination: destination)
            if let sourceTable = table.sourceTable {
                guard usedSourceTables.insert(sourceTable).inserted else {
                    throw notInferable(
                        "the entities of '\(sourceTable)' are split between several hierarchies of the new model")
                }
            }
            tables.append(table)
        }
        for root in source.model.entities where root.parentEntity == nil && !usedSourceTables.contains(root.name) {
            let rows = try count(root.name)
            steps.append(
                MigrationStep(
                    kind: "removeEntity", entity: root.name,
                    summary: "remove entity '\(root.name)' and its table (\(rows) rows)", cost: .instantDDL,
                    rows: rows, isDestructive: rows > 0))
            tables.append(
                TableMigration(
                    table: "", sourceTable: root.name, columns: [], droppedColumns: [], removedEntityIDs: [],
                    rebuilds: false, rowCount: rows))
        }
        let joins = try planJoinTables(destination: destination)
        try planIndexes(destination: destination, tables: tables)
        try planDerivations()
        return MigrationPlan(
            sourceHash: source.model.versionHash, destinationHash: model.versionHash, steps: steps, checks: checks,
            policy: policy, tables: tables, joins: joins, rejections: rejections, destination: destination,
            source: source, externalStorageThreshold: externalStorageThreshold, derivations: derivations,
            relationshipMoves: relationshipMoves)
    }

    // MARK: - Entities

    /// Fills `oldNames` and records entity renames and additions.
    private mutating func matchEntities() throws {
        var matchedBy: [String: String] = [:]
        for entity in model.entities {
            let old: String?
            if let renamed = entity.renamingIdentifier, source.model.entity(named: renamed) != nil {
                old = renamed
            } else if source.model.entity(named: entity.name) != nil {
                old = entity.name
            } else {
                old = nil
            }
            guard let old else {
                steps.append(
                    MigrationStep(
                        kind: "addEntity", entity: entity.name, summary: "add entity '\(entity.name)'",
                        cost: .instantDDL))
                continue
            }
            if let other = matchedBy[old] {
                throw notInferable(
                    "entity '\(old)' would become both '\(other)' and '\(entity.name)' (splitting an entity)")
            }
            matchedBy[old] = entity.name
            oldNames[entity.name] = old
            if old != entity.name {
                steps.append(
                    MigrationStep(
                        kind: "renameEntity", entity: entity.name,
                        summary: "rename entity '\(old)' to '\(entity.name)'", cost: .instantDDL))
            }
        }
    }

    /// Entity numbers for the new model: kept for matched entities, new ones after the store's highest (numbers of
    /// removed entities are never reused).
    private func entityIDs() -> [String: Int] {
        var ids: [String: Int] = [:]
        for entity in model.entities {
            if let old = oldNames[entity.name], let id = source.mapping(for: old)?.entityID { ids[entity.name] = id }
        }
        var next = (source.entityNames.keys.max() ?? 0) + 1
        for entity in model.entities {
            for ancestor in model.ancestry(of: entity.name) where ids[ancestor.name] == nil {
                ids[ancestor.name] = next
                next += 1
            }
        }
        return ids
    }

    // MARK: - Tables

    /// How the table of the hierarchy rooted at `root` is made.
    private mutating func planTable(_ root: String, destination: StoreSchema) throws -> TableMigration {
        let hierarchy = [root] + model.subentities(of: root)
        let sourceRoots = Set(hierarchy.compactMap { oldNames[$0] }.map { source.model.rootEntity(of: $0) })
        guard sourceRoots.count <= 1 else {
            throw notInferable(
                "the hierarchy of '\(root)' would merge the tables \(sourceRoots.sorted().joined(separator: ", ")) "
                    + "(merging hierarchies)")
        }
        let columns = destination.tableColumns(forRoot: root)
        guard let sourceTable = sourceRoots.first else {
            return TableMigration(
                table: root, sourceTable: nil,
                columns: columns.map {
                    .init(name: $0.name, type: $0.type, source: nil, cast: false, fill: nil, fillEntityIDs: [])
                }, droppedColumns: [], removedEntityIDs: [], rebuilds: false, rowCount: 0)
        }
        let rows = try count(sourceTable)
        if sourceTable != root {
            steps.append(
                MigrationStep(
                    kind: "renameTable", entity: root, summary: "rename table '\(sourceTable)' to '\(root)'",
                    cost: .instantDDL))
        }
        var table = TableMigration(
            table: root, sourceTable: sourceTable, columns: [], droppedColumns: [], removedEntityIDs: [],
            rebuilds: false, rowCount: rows)
        let sourceColumns = source.tableColumns(forRoot: sourceTable)
        var carried: Set<String> = []
        for column in columns {
            let planned = try planColumn(
                column, inTable: root, sourceTable: sourceTable, sourceColumns: sourceColumns, rows: rows,
                destination: destination)
            if let old = planned.source { carried.insert(old) }
            // Values moving between rows and files go into a copy chunk by chunk, so the old table stays as it was
            // until the swap.
            if planned.cast || planned.blobMove != nil { table.rebuilds = true }
            table.columns.append(planned)
        }
        for old in sourceColumns where !carried.contains(old.name) {
            table.droppedColumns.append(old.name)
            // Links a relationship change moves elsewhere: not data removed.
            if consumedStorage.contains("\(sourceTable).\(old.name)") { continue }
            let values = try count(sourceTable, where: "\(SQL.identifier(old.name)) IS NOT NULL")
            steps.append(
                MigrationStep(
                    kind: "removeProperty", entity: root,
                    summary: "remove column '\(old.name)' of '\(sourceTable)' (\(values) values)", cost: .onePass,
                    rows: rows, isDestructive: values > 0))
        }
        let sourceHierarchy = [sourceTable] + source.model.subentities(of: sourceTable)
        let kept = Set(hierarchy.compactMap { oldNames[$0] })
        for old in sourceHierarchy where !kept.contains(old) {
            guard let id = source.mapping(for: old)?.entityID else { continue }
            let removed = try count(sourceTable, where: "\(SQL.identifier("_ent")) = \(id)")
            table.removedEntityIDs.append(id)
            steps.append(
                MigrationStep(
                    kind: "removeEntity", entity: old, summary: "remove entity '\(old)' (\(removed) rows)",
                    cost: .onePass, rows: rows, isDestructive: removed > 0))
        }
        if table.rebuilds {
            let why =
                table.columns.contains(where: \.cast)
                ? "a column changes storage class" : "values move between rows and blob files, in chunks"
            steps.append(
                MigrationStep(
                    kind: "rebuildTable", entity: root,
                    summary: "copy table '\(sourceTable)' into a new '\(root)' (\(why))", cost: .tableRebuild,
                    rows: rows))
        }
        return table
    }

    /// Where one new column's values come from.
    private mutating func planColumn(
        _ column: (name: String, type: String), inTable root: String, sourceTable: String,
        sourceColumns: [(name: String, type: String)], rows: Int, destination: StoreSchema
    ) throws -> TableMigration.Column {
        var planned = TableMigration.Column(
            name: column.name, type: column.type, source: nil, cast: false, fill: nil, fillEntityIDs: [])
        let hierarchy = [root] + model.subentities(of: root)
        let sourceHierarchy = [sourceTable] + source.model.subentities(of: sourceTable)
        let hasSourceColumn = { (name: String) in sourceColumns.contains { $0.name == name } }
        if let (owner, attribute) = owner(ofAttribute: column.name, in: hierarchy) {
            let candidates = [attribute.renamingIdentifier, attribute.name].compactMap { $0 }
            let oldName = candidates.first(where: hasSourceColumn)
            let sourceModel = source.model
            let oldAttribute = oldName.flatMap { name in
                sourceHierarchy.compactMap { sourceModel.entity(named: $0)?.attribute(named: name) }.first
            }
            let ids = destination.mapping(for: owner)?.hierarchyIDs ?? []
            guard let oldName, let oldAttribute else {
                try planNewAttribute(attribute, of: owner, table: sourceTable, ids: ids, rows: rows, into: &planned)
                return planned
            }
            planned.source = oldName
            if oldName != attribute.name {
                steps.append(
                    MigrationStep(
                        kind: "renameAttribute", entity: owner,
                        summary: "rename attribute '\(owner).\(oldName)' to '\(attribute.name)'", cost: .instantDDL))
            }
            if oldAttribute.type != attribute.type, Self.widening(from: oldAttribute.type, to: attribute.type) == nil {
                try planConversion(
                    from: oldAttribute, to: attribute, of: owner, column: oldName, table: sourceTable, ids: ids,
                    rows: rows, into: &planned)
            } else if oldAttribute.type != attribute.type,
                let cast = Self.widening(from: oldAttribute.type, to: attribute.type)
            {
                planned.cast = cast
                steps.append(
                    MigrationStep(
                        kind: "widenType", entity: owner,
                        summary: "widen '\(owner).\(attribute.name)' from \(oldAttribute.type.name) to "
                            + "\(attribute.type.name)", cost: cast ? .tableRebuild : .instantDDL,
                        rows: cast ? rows : 0))
            }
            try planBlobMove(
                from: oldAttribute, to: attribute, of: owner, column: oldName, table: sourceTable, ids: ids,
                into: &planned)
            if oldAttribute.isOptional && !attribute.isOptional {
                try planRequired(attribute, of: owner, column: oldName, table: sourceTable, ids: ids, into: &planned)
            }
            return planned
        }
        if let (owner, relationship) = owner(ofRelationship: column.name, in: hierarchy) {
            let oldOwner = oldNames[owner]
            let oldRelationships = oldOwner.map { source.model.allRelationships(of: $0) } ?? []
            let candidates = [relationship.renamingIdentifier, relationship.name].compactMap { $0 }
            let old = candidates.lazy.compactMap { name in oldRelationships.first { $0.name == name } }.first
            guard let old else {
                steps.append(
                    MigrationStep(
                        kind: "addRelationship", entity: owner,
                        summary: "add relationship '\(owner).\(relationship.name)'", cost: .instantDDL))
                return planned
            }
            guard !old.isToMany else {
                let moved = relationshipMoves.contains { move in
                    guard case .foreignKey(let table, let name, _, _) = move.target else { return false }
                    return table == root && name == column.name
                }
                guard moved else {
                    throw notInferable(
                        "relationship '\(owner).\(relationship.name)' changes from to-many to to-one and its links "
                            + "cannot be found")
                }
                return planned
            }
            guard oldNames[relationship.destinationEntity] == old.destinationEntity else {
                throw notInferable(
                    "relationship '\(owner).\(relationship.name)' now points to '\(relationship.destinationEntity)' "
                        + "instead of '\(old.destinationEntity)'")
            }
            planned.source = old.name
            if old.name != relationship.name {
                steps.append(
                    MigrationStep(
                        kind: "renameRelationship", entity: owner,
                        summary: "rename relationship '\(owner).\(old.name)' to '\(relationship.name)'",
                        cost: .instantDDL))
            }
            return planned
        }
        if column.name.hasSuffix("_ent") {
            let relationshipName = String(column.name.dropLast(4))
            if let planned = sourceForEntityColumn(column, relationship: relationshipName, hierarchy: hierarchy,
                hasSourceColumn: hasSourceColumn)
            {
                return planned
            }
        }
        // An order column: carried when it existed, else numbered in insertion order.
        if hasSourceColumn(column.name) { planned.source = column.name }
        return planned
    }

    /// An `<relationship>_ent` column: carried from the old relationship's, or (when the destination has just gained
    /// sub-entities) left to the executor to fill from the destination rows.
    private func sourceForEntityColumn(
        _ column: (name: String, type: String), relationship name: String, hierarchy: [String],
        hasSourceColumn: (String) -> Bool
    ) -> TableMigration.Column? {
        guard let (owner, relationship) = owner(ofRelationship: name, in: hierarchy) else { return nil }
        var planned = TableMigration.Column(
            name: column.name, type: column.type, source: nil, cast: false, fill: nil, fillEntityIDs: [])
        let oldOwner = oldNames[owner]
        let oldRelationships = oldOwner.map { source.model.allRelationships(of: $0) } ?? []
        let candidates = [relationship.renamingIdentifier, relationship.name].compactMap { $0 }
        if let old = candidates.lazy.compactMap({ n in oldRelationships.first { $0.name == n } }).first,
            hasSourceColumn(old.name + "_ent")
        {
            planned.source = old.name + "_ent"
        }
        return planned
    }

    /// The entity of `hierarchy` that declares the stored attribute `name`, with it.
    private func owner(ofAttribute name: String, in hierarchy: [String]) -> (String, AttributeDescription)? {
        for entity in hierarchy {
            if let attribute = model.entity(named: entity)?.attribute(named: name), attribute.isStored {
                return (entity, attribute)
            }
        }
        return nil
    }

    /// The entity of `hierarchy` that declares the to-one relationship `name`, with it.
    private func owner(ofRelationship name: String, in hierarchy: [String]) -> (String, RelationshipDescription)? {
        for entity in hierarchy {
            if let relationship = model.entity(named: entity)?.relationship(named: name), !relationship.isToMany {
                return (entity, relationship)
            }
        }
        return nil
    }

    /// Whether `old` widens to `new`: `false` when the stored values stay as they are, `true` when they are cast
    /// to the new storage class; `nil` when the change is not a widening.
    static func widening(from old: AttributeType, to new: AttributeType) -> Bool? {
        let integers: [AttributeType] = [.integer16, .integer32, .integer64]
        if let from = integers.firstIndex(of: old), let to = integers.firstIndex(of: new) {
            return from < to ? false : nil
        }
        switch (old, new) {
        case (.boolean, .integer16), (.boolean, .integer32), (.boolean, .integer64): return false
        case (.float, .double): return false
        case (.integer16, .double), (.integer32, .double), (.integer64, .double): return true
        case (.integer16, .float), (.integer32, .float): return true
        case (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): return true
        case (.date, .double), (.date, .float): return false
        case (.integer16, .string), (.integer32, .string), (.integer64, .string), (.double, .string),
            (.float, .string):
            return true
        case (.decimal, .string), (.uuid, .string), (.uri, .string): return false
        default: return nil
        }
    }

    // MARK: - Helpers

    /// The rows of `table` (matching `condition`).
    func count(_ table: String, where condition: String? = nil) throws -> Int {
        let sql =
            "SELECT count(*) FROM \(SQL.identifier(table))" + (condition.map { " WHERE \($0)" } ?? "")
        return Int(try connection.prepare(sql).fetchOne()?[0].integer ?? 0)
    }

    func notInferable(_ change: String) -> MigrationError {
        MigrationError(
            .notInferable,
            "the migration cannot be inferred: \(change); write a custom stage (a willMigrate/didMigrate handler, or "
                + "declarative steps in the versioned model folder) or rebuild the store",
            path: connection.path)
    }
}
