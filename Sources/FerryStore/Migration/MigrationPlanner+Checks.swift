import FerrySQLite
import Foundation

/// New required values, join tables, indexes and constraints, and the checks of the data they need.
extension MigrationPlanner {
    /// A new attribute: an added column; a required one needs a value for the rows already there.
    mutating func planNewAttribute(
        _ attribute: AttributeDescription, of owner: String, table: String?, ids: [Int], rows: Int,
        into planned: inout TableMigration.Column
    ) throws {
        steps.append(
            MigrationStep(
                kind: "addAttribute", entity: owner, summary: "add attribute '\(owner).\(attribute.name)'",
                cost: .instantDDL))
        guard !attribute.isOptional, let table else { return }
        let condition = Self.entityCondition(ids, table: table)
        let existing = try count(table, where: condition)
        guard existing > 0 else { return }
        fillDefault(
            of: attribute, owner: owner, ids: ids, rows: existing, into: &planned,
            summary: "give the \(existing) existing rows of '\(owner)' the default of '\(attribute.name)'",
            orRecordNullsIn: table, where: condition,
            fix: "give '\(owner).\(attribute.name)' a default value in the model, or make it optional")
    }

    /// An attribute that became required: its nulls get the default, or break the rule.
    mutating func planRequired(
        _ attribute: AttributeDescription, of owner: String, column: String, table: String, ids: [Int],
        into planned: inout TableMigration.Column
    ) throws {
        let condition = "\(Self.entityCondition(ids, table: table)) AND \(Self.qualified(table, column)) IS NULL"
        let nulls = try count(table, where: condition)
        guard nulls > 0 else { return }
        fillDefault(
            of: attribute, owner: owner, ids: ids, rows: nulls, into: &planned,
            summary: "give the \(nulls) nulls of '\(owner).\(attribute.name)' its default (now required)",
            orRecordNullsIn: table, where: condition,
            fix: "give '\(owner).\(attribute.name)' a default value in the model (the nulls get it), fill the "
                + "nulls first, or run with --on-violation reject")
    }

    /// The `rows` rows of `table` matching `condition` need a value of `attribute`: its default when it has one (a
    /// pass that fills them), otherwise they are nulls that break the new model, with `fix` as the remedy.
    private mutating func fillDefault(
        of attribute: AttributeDescription, owner: String, ids: [Int], rows: Int,
        into planned: inout TableMigration.Column, summary: String, orRecordNullsIn table: String,
        where condition: String, fix: String
    ) {
        guard let value = attribute.defaultValue else {
            recordNulls(rows, entity: owner, attribute: attribute.name, table: table, condition: condition, fix: fix)
            return
        }
        planned.fill = StoredValueCodec.encode(value, as: attribute.type)
        planned.fillEntityIDs = ids
        steps.append(
            MigrationStep(kind: "fillDefault", entity: owner, summary: summary, cost: .onePass, rows: rows))
    }

    /// Rows with no value for a required attribute and no default to give them.
    private mutating func recordNulls(
        _ rows: Int, entity: String, attribute: String, table: String, condition: String, fix: String
    ) {
        let rejects = policy == .reject
        checks.append(
            MigrationCheck(
                kind: "nullsNeedValue", entity: entity, attributes: [attribute], violations: rows, samples: [],
                resolution: rejects
                    ? "the \(rows) rows are rejected into ferry_migration_rejects" : "\(rows) rows hold no value: \(fix)",
                blocks: !rejects))
        if rejects {
            rejections.append(
                Rejection(
                    table: table, entity: entity, condition: condition,
                    reason: "no value for '\(entity).\(attribute)', which the new model requires"))
            steps.append(
                MigrationStep(
                    kind: "rejectRows", entity: entity,
                    summary: "reject the \(rows) rows of '\(entity)' without '\(attribute)'", cost: .onePass,
                    rows: rows, isDestructive: true))
        }
    }

    // MARK: - Join tables

    /// How each join table of the new model is made, and which old ones go.
    mutating func planJoinTables(destination: StoreSchema) throws -> [JoinMigration] {
        var joins: [JoinMigration] = []
        var carried: Set<String> = []
        for join in destination.joinTables {
            let oldEntity = oldNames[join.sourceEntity]
            let relationship = model.entity(named: join.sourceEntity)?.relationship(named: join.relationship)
            let candidates = [relationship?.renamingIdentifier, relationship.map(\.name)].compactMap { $0 }
            let oldRelationships = oldEntity.map { source.model.allRelationships(of: $0) } ?? []
            let old = candidates.lazy.compactMap { name in oldRelationships.first { $0.name == name } }.first
            let moved = relationshipMoves.contains { move in
                guard case .joinTable(let name) = move.target else { return false }
                return name == join.name
            }
            if moved {
                joins.append(JoinMigration(table: join.name, sourceTable: nil))
                continue
            }
            guard let oldEntity, let old else {
                if oldEntity != nil, relationship != nil {
                    steps.append(
                        MigrationStep(
                            kind: "addRelationship", entity: join.sourceEntity,
                            summary: "add relationship '\(join.sourceEntity).\(join.relationship)' (join table "
                                + "'\(join.name)')", cost: .instantDDL))
                }
                joins.append(JoinMigration(table: join.name, sourceTable: nil))
                continue
            }
            guard let oldJoin = source.joinTables.first(where: {
                $0.sourceEntity == oldEntity && $0.relationship == old.name
            }) else {
                throw notInferable(
                    "relationship '\(join.sourceEntity).\(join.relationship)' changes from to-one (or one-to-many) "
                        + "to many-to-many; Ferry does not infer this yet")
            }
            guard oldJoin.isOrdered == join.isOrdered else {
                throw notInferable(
                    "relationship '\(join.sourceEntity).\(join.relationship)' changes between ordered and "
                        + "unordered; Ferry does not infer this yet for many-to-many relationships")
            }
            carried.insert(oldJoin.name)
            if oldJoin.name != join.name {
                steps.append(
                    MigrationStep(
                        kind: "renameRelationship", entity: join.sourceEntity,
                        summary: "rename join table '\(oldJoin.name)' to '\(join.name)'", cost: .instantDDL))
            }
            joins.append(JoinMigration(table: join.name, sourceTable: oldJoin.name))
        }
        for old in source.joinTables where !carried.contains(old.name) {
            if consumedStorage.contains(old.name) {
                joins.append(JoinMigration(table: nil, sourceTable: old.name))
                continue
            }
            let rows = try count(old.name)
            steps.append(
                MigrationStep(
                    kind: "removeRelationship", entity: old.sourceEntity,
                    summary: "remove relationship '\(old.sourceEntity).\(old.relationship)' (join table "
                        + "'\(old.name)', \(rows) rows)", cost: .instantDDL, rows: rows, isDestructive: rows > 0))
            joins.append(JoinMigration(table: nil, sourceTable: old.name))
        }
        return joins
    }

    // MARK: - Indexes and constraints

    /// Indexes and uniqueness constraints added or removed; a new constraint is checked for duplicate keys.
    mutating func planIndexes(destination: StoreSchema, tables: [TableMigration]) throws {
        let moved = Set(tables.filter { $0.rebuilds || $0.sourceTable != $0.table }.compactMap(\.sourceTable))
        let existing = try Self.existingIndexes(on: connection)
        let wanted = Self.indexStatements(of: destination)
        for statement in wanted where !existing.contains(where: { $0.sql == statement && !moved.contains($0.table) }) {
            guard let parsed = Self.parseIndex(statement),
                let table = tables.first(where: { $0.table == parsed.table })
            else { continue }
            let unique = statement.hasPrefix("CREATE UNIQUE")
            steps.append(
                MigrationStep(
                    kind: unique ? "addConstraint" : "addIndex", entity: parsed.table,
                    summary: "build \(unique ? "unique " : "")index '\(parsed.name)' on '\(parsed.table)' "
                        + "(\(parsed.columns.joined(separator: ", ")))", cost: .indexBuild, rows: table.rowCount))
            if unique, let sourceTable = table.sourceTable,
                !Self.isEnforced(parsed, table: table, sourceTable: sourceTable, by: existing)
            {
                try checkDuplicates(parsed, table: table, sourceTable: sourceTable)
            }
        }
        for index in existing where !wanted.contains(index.sql) && !moved.contains(index.table) {
            steps.append(
                MigrationStep(
                    kind: "removeIndex", entity: index.table, summary: "drop index '\(index.name)'",
                    cost: .instantDDL))
        }
    }

    /// Counts the rows a new uniqueness constraint would refuse, and decides what happens to them.
    private mutating func checkDuplicates(
        _ index: ParsedIndex, table: TableMigration, sourceTable: String
    ) throws {
        var keys: [String] = []
        for column in index.columns {
            guard let planned = table.columns.first(where: { $0.name == column }) else { return }
            guard let old = planned.source else {
                // A new column: all null (never duplicates) unless it gets a default, which every row shares.
                if planned.fill != nil && table.rowCount > 1 {
                    checks.append(
                        MigrationCheck(
                            kind: "duplicateKeys", entity: index.table, attributes: index.columns,
                            violations: table.rowCount - 1, samples: [],
                            resolution: "the new attribute '\(column)' gives every row the same default, so the "
                                + "constraint cannot hold; back-fill distinct values in a custom stage",
                            blocks: true))
                }
                return
            }
            keys.append(Self.qualified(sourceTable, old))
        }
        let scope = index.condition.map { " AND " + Self.qualifiedCondition($0, table: sourceTable) } ?? ""
        let notNull = keys.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
        let sql =
            "SELECT \(keys.joined(separator: ", ")), count(*) FROM \(SQL.identifier(sourceTable)) WHERE \(notNull)"
            + scope + " GROUP BY \(keys.joined(separator: ", ")) HAVING count(*) > 1 ORDER BY count(*) DESC"
        let groups = try connection.prepare(sql).fetchAll()
        guard !groups.isEmpty else { return }
        let extra = groups.reduce(0) { $0 + Int($1[keys.count].integer ?? 1) - 1 }
        let samples = groups.prefix(5).map { row in
            (0..<keys.count).map { row[$0].description }.joined(separator: "|")
        }
        let entity = index.table
        let attributes = index.columns
        let resolution: String
        let blocks: Bool
        var comparison: String?
        switch policy {
        case .keepFirst:
            resolution = "the first row of each key stays; \(extra) later rows are rejected into ferry_migration_rejects"
            blocks = false
            comparison = "<"
        case .keepLast:
            resolution = "the last row of each key stays; \(extra) earlier rows are rejected into ferry_migration_rejects"
            blocks = false
            comparison = ">"
        case .reject:
            let all = groups.reduce(0) { $0 + Int($1[keys.count].integer ?? 0) }
            resolution = "all \(all) rows that share a key are rejected into ferry_migration_rejects"
            blocks = false
            comparison = "<>"
        case .fail, .default:
            resolution =
                "\(groups.count) keys are held by several rows; remove the duplicates first (a willMigrate stage), "
                + "or run with --on-violation keep-first, keep-last or reject"
            blocks = true
        }
        checks.append(
            MigrationCheck(
                kind: "duplicateKeys", entity: entity, attributes: attributes, violations: extra, samples: samples,
                resolution: resolution, blocks: blocks))
        guard let comparison else { return }
        let outer = keys
        let inner = outer.map { $0.replacingOccurrences(of: SQL.identifier(sourceTable) + ".", with: "o.") }
        let matches = zip(inner, outer).map { "\($0) = \($1)" }.joined(separator: " AND ")
        let innerScope = index.condition.map { " AND " + $0.replacingOccurrences(of: "\"_ent\"", with: "o.\"_ent\"") }
            ?? ""
        let condition =
            "\(notNull)\(scope) AND EXISTS (SELECT 1 FROM \(SQL.identifier(sourceTable)) AS o WHERE \(matches)"
            + "\(innerScope) AND o.\"_pk\" \(comparison) \(Self.qualified(sourceTable, "_pk")))"
        rejections.append(
            Rejection(
                table: sourceTable, entity: entity, condition: condition,
                reason: "duplicate key for the new uniqueness constraint on '\(entity)' "
                    + "(\(attributes.joined(separator: ", ")))"))
        steps.append(
            MigrationStep(
                kind: "rejectRows", entity: entity,
                summary: "reject \(policy == .reject ? "the rows" : "\(extra) rows") that break the new constraint "
                    + "on '\(entity)' (\(attributes.joined(separator: ", ")))", cost: .onePass, rows: table.rowCount,
                isDestructive: true))
    }

    /// Whether the old table already has a unique index on the same columns (and condition): a constraint carried
    /// through a rebuild or rename cannot have duplicates, so it needs no check.
    static func isEnforced(
        _ index: ParsedIndex, table: TableMigration, sourceTable: String, by existing: [SchemaObject]
    ) -> Bool {
        let oldColumns = index.columns.map { column in table.columns.first { $0.name == column }?.source }
        guard !oldColumns.contains(where: { $0 == nil }) else { return false }
        return existing.contains { object in
            guard object.table == sourceTable, object.sql.hasPrefix("CREATE UNIQUE"),
                let old = parseIndex(object.sql)
            else { return false }
            return old.columns == oldColumns.compactMap { $0 } && old.condition == index.condition
        }
    }

    // MARK: - Derivations

    /// Derived attributes added or changed: the store's triggers are replaced and the values of the rows already
    /// there recomputed in one set-based `UPDATE` each.
    mutating func planDerivations() throws {
        for entity in model.entities {
            for attribute in entity.attributes where attribute.derivation != nil && attribute.isStored {
                let old = oldNames[entity.name].flatMap { source.model.entity(named: $0) }?
                    .attribute(named: attribute.renamingIdentifier ?? attribute.name)
                guard old?.derivation != attribute.derivation else { continue }
                let table = model.rootEntity(of: entity.name)
                var rows = 0
                if let old = oldNames[table] { rows = try count(source.model.rootEntity(of: old)) }
                derivations.append("\(entity.name).\(attribute.name)")
                steps.append(
                    MigrationStep(
                        kind: "changeDerivation", entity: entity.name,
                        summary: "maintain '\(entity.name).\(attribute.name)' as \(attribute.derivation ?? "") and "
                            + "recompute it for the rows already there", cost: .onePass, rows: rows))
            }
        }
    }

    // MARK: - SQL helpers

    /// `"T"."_ent" IN (…)`, or `1` when `ids` is empty.
    static func entityCondition(_ ids: [Int], table: String) -> String {
        guard !ids.isEmpty else { return "1" }
        return "\(qualified(table, "_ent")) IN (\(ids.map(String.init).joined(separator: ", ")))"
    }

    /// `"T"."column"`.
    static func qualified(_ table: String, _ column: String) -> String {
        SQL.identifier(table) + "." + SQL.identifier(column)
    }

    /// A partial index's `"_ent" IN (…)` condition with the column qualified by `table`.
    static func qualifiedCondition(_ condition: String, table: String) -> String {
        condition.replacingOccurrences(of: "\"_ent\"", with: qualified(table, "_ent"))
    }
}
