import FerrySQLite

/// Relationships whose storage changes: to-one ↔ to-many (a key column ↔ a join table, or the key column moving to
/// the other side) and ordered ↔ unordered many-to-many. Their links are carried as (owner, member, position)
/// pairs read from the old layout and written into the new one.
extension MigrationPlanner {
    /// Where a relationship's links live.
    enum RelationshipStorage: Hashable {
        /// A key column on the owner's table.
        case foreignKey(table: String, column: String)
        /// The inverse's key column on the destination's table (a to-many whose inverse is to-one), with the order
        /// column when the relationship is ordered and the table has one.
        case inverseForeignKey(table: String, column: String, order: String?)
        /// A join table; `ownerIsSource` when the owner's keys are in `source`.
        case joinTable(name: String, ownerIsSource: Bool, isOrdered: Bool)

        /// The old layout's tables and columns this storage occupies, as `table.column` (or a join table's name).
        var places: [String] {
            switch self {
            case .foreignKey(let table, let column): ["\(table).\(column)", "\(table).\(column)_ent"]
            case .inverseForeignKey(let table, let column, let order):
                ["\(table).\(column)", "\(table).\(column)_ent"] + (order.map { ["\(table).\($0)"] } ?? [])
            case .joinTable(let name, _, _): [name]
            }
        }
    }

    /// How `relationship` of `entity` is stored in `schema`, or `nil` when it is not stored there.
    static func storage(
        of relationship: RelationshipDescription, of entity: String, in schema: StoreSchema
    ) -> RelationshipStorage? {
        let model = schema.model
        guard relationship.isToMany else {
            return .foreignKey(table: model.rootEntity(of: entity), column: relationship.name)
        }
        let inverse = relationship.inverseName.flatMap { name in
            model.allRelationships(of: relationship.destinationEntity).first { $0.name == name }
        }
        if let inverse, !inverse.isToMany {
            let table = model.rootEntity(of: relationship.destinationEntity)
            let order = "_order_\(inverse.name)"
            return .inverseForeignKey(
                table: table, column: inverse.name,
                order: relationship.isOrdered && schema.orderColumns(inTable: table).contains(order) ? order : nil)
        }
        guard let join = schema.joinTable(for: relationship.name, of: entity) else { return nil }
        let ownerIsSource =
            join.relationship == relationship.name
            && model.ancestry(of: entity).contains { $0.name == join.sourceEntity }
        return .joinTable(name: join.name, ownerIsSource: ownerIsSource, isOrdered: join.isOrdered)
    }

    /// The `owner, member, position, inverse_position` rows of a relationship stored as `storage` in the old layout,
    /// for owners of the entities numbered `ownerIDs`: `position` orders the members of an owner, `inverse_position`
    /// the owners of a member (the other side's order, when that side is an ordered to-many of a join table).
    func pairs(of storage: RelationshipStorage, ownerIDs: [Int], memberIDs: [Int]) -> String {
        let q = SQL.identifier
        func ids(_ list: [Int]) -> String { list.map(String.init).joined(separator: ", ") }
        switch storage {
        case .foreignKey(let table, let column):
            return "SELECT \(q("_pk")) AS owner, \(q(column)) AS member, NULL AS position, NULL AS inverse_position "
                + "FROM \(q(table)) "
                + "WHERE \(q(column)) IS NOT NULL AND \(q("_ent")) IN (\(ids(ownerIDs)))"
        case .inverseForeignKey(let table, let column, let order):
            return "SELECT \(q(column)) AS owner, \(q("_pk")) AS member, \(order.map(q) ?? "NULL") AS position, "
                + "NULL AS inverse_position FROM \(q(table)) WHERE \(q(column)) IS NOT NULL AND \(q("_ent")) IN (\(ids(memberIDs)))"
        case .joinTable(let name, let ownerIsSource, let isOrdered):
            return ownerIsSource
                ? "SELECT source AS owner, destination AS member, \(isOrdered ? "position" : "NULL") AS position, "
                    + "NULL AS inverse_position FROM \(q(name))"
                : "SELECT destination AS owner, source AS member, NULL AS position, "
                    + "\(isOrdered ? "position" : "NULL") AS inverse_position FROM \(q(name))"
        }
    }

    /// Finds the relationships whose storage changes and plans their moves, with the check that a relationship
    /// turned to-one finds at most one member per object. Runs before the tables are planned, so that the old
    /// storage a move reads is not counted as data removed.
    mutating func planRelationshipMoves(destination: StoreSchema) throws {
        for entity in model.entities {
            guard let oldEntity = oldNames[entity.name] else { continue }
            let oldRelationships = source.model.allRelationships(of: oldEntity)
            for relationship in entity.relationships {
                let candidates = [relationship.renamingIdentifier, relationship.name].compactMap { $0 }
                guard let old = candidates.lazy.compactMap({ n in oldRelationships.first { $0.name == n } }).first,
                    oldNames[relationship.destinationEntity] == old.destinationEntity,
                    let before = Self.storage(of: old, of: oldEntity, in: source),
                    let after = Self.storage(of: relationship, of: entity.name, in: destination)
                else { continue }
                switch (before, after) {
                case (.foreignKey, .foreignKey), (.inverseForeignKey, .inverseForeignKey):
                    continue
                case (.joinTable(_, _, let wasOrdered), .joinTable(_, _, let isOrdered)) where wasOrdered == isOrdered:
                    continue
                case (.foreignKey, .inverseForeignKey):
                    // A one-to-one turned one-to-many: the inverse's key column already holds every link.
                    consumedStorage.formUnion(before.places)
                    continue
                case (_, .inverseForeignKey):
                    // The inverse (now to-one) carries the links; its own move reads the same storage.
                    continue
                case (_, .joinTable(_, let ownerIsSource, _)) where !ownerIsSource:
                    continue  // the join table's owning side moves the links
                default:
                    break
                }
                let ownerIDs = source.mapping(for: oldEntity)?.hierarchyIDs ?? []
                let memberIDs = source.mapping(for: old.destinationEntity)?.hierarchyIDs ?? []
                let pairs = pairs(of: before, ownerIDs: ownerIDs, memberIDs: memberIDs)
                consumedStorage.formUnion(before.places)
                let name = "'\(entity.name).\(relationship.name)'"
                let links = try count(subquery: pairs)
                let change =
                    "\(old.isToMany ? "to-many" : "to-one")\(old.isOrdered ? " (ordered)" : "") to "
                    + "\(relationship.isToMany ? "to-many" : "to-one")\(relationship.isOrdered ? " (ordered)" : "")"
                var move = RelationshipMove(pairs: pairs, target: .joinTable(name: ""), keepsLast: false)
                switch after {
                case .foreignKey(let table, let column):
                    // An ordered inverse keeps its order on this table.
                    let order = "_order_\(relationship.name)"
                    move.target = .foreignKey(
                        table: table, column: column,
                        entityIDs: destination.mapping(for: entity.name)?.hierarchyIDs ?? [],
                        orderColumn: destination.orderColumns(inTable: table).contains(order) ? order : nil)
                    move.keepsLast = policy == .keepLast
                    steps.append(
                        MigrationStep(
                            kind: "changeRelationship", entity: entity.name,
                            summary: "turn \(name) from \(change): its \(links) links move into the column "
                                + "'\(table).\(column)'", cost: .onePass, rows: links))
                    try checkSingleMembers(pairs, owner: entity.name, relationship: relationship.name, table: oldEntity)
                case .joinTable(let join, _, _):
                    move.target = .joinTable(name: join)
                    steps.append(
                        MigrationStep(
                            kind: "changeRelationship", entity: entity.name,
                            summary: "turn \(name) from \(change): its \(links) links move into the join table "
                                + "'\(join)'", cost: .onePass, rows: links))
                case .inverseForeignKey:
                    continue
                }
                relationshipMoves.append(move)
            }
        }
    }

    /// A relationship turned to-one: objects with more than one member break it; the policy decides.
    private mutating func checkSingleMembers(
        _ pairs: String, owner entity: String, relationship: String, table: String
    ) throws {
        let crowded = "SELECT owner FROM (\(pairs)) GROUP BY owner HAVING count(*) > 1"
        let owners = try connection.prepare("\(crowded) ORDER BY owner").fetchAll().compactMap { $0[0].integer }
        guard !owners.isEmpty else { return }
        let samples = owners.prefix(5).map { "_pk \($0)" }
        let name = "'\(entity).\(relationship)'"
        let resolution: String
        var blocks = false
        switch policy {
        case .keepFirst, .keepLast:
            let which = policy == .keepFirst ? "first" : "last"
            resolution = "each keeps its \(which) member (by order, then row number); the other links are dropped"
            steps.append(
                MigrationStep(
                    kind: "dropLinks", entity: entity,
                    summary: "keep the \(which) member of \(name) of the \(owners.count) objects that have several",
                    cost: .onePass, rows: owners.count, isDestructive: true))
        case .reject:
            resolution = "the \(owners.count) objects are rejected into ferry_migration_rejects"
            let root = source.model.rootEntity(of: table)
            rejections.append(
                Rejection(
                    table: root, entity: entity,
                    condition: "\(Self.qualified(root, "_pk")) IN (\(crowded))",
                    reason: "more than one member of \(name), which the new model makes to-one"))
            steps.append(
                MigrationStep(
                    kind: "rejectRows", entity: entity,
                    summary: "reject the \(owners.count) objects of '\(entity)' with several members of \(name)",
                    cost: .onePass, rows: owners.count, isDestructive: true))
        case .fail, .default:
            resolution =
                "\(owners.count) objects have more than one member of \(name); remove the extra links first "
                + "(a willMigrate stage), or run with --on-violation keep-first, keep-last or reject"
            blocks = true
        }
        checks.append(
            MigrationCheck(
                kind: "severalMembers", entity: entity, attributes: [relationship], violations: owners.count,
                samples: samples, resolution: resolution, blocks: blocks))
    }

    /// The rows `subquery` returns.
    func count(subquery: String) throws -> Int {
        Int(try connection.prepare("SELECT count(*) FROM (\(subquery))").fetchOne()?[0].integer ?? 0)
    }
}

/// The links of a relationship whose storage changes: read as pairs from the old layout before anything changes,
/// written into the new one.
struct RelationshipMove: Sendable {
    /// Where the links go.
    enum Target: Sendable {
        /// A key column; `entityIDs` are the owner rows' `_ent` values; `orderColumn` the column that keeps the
        /// owner's place among the members of its ordered inverse.
        case foreignKey(table: String, column: String, entityIDs: [Int], orderColumn: String?)
        /// A join table of the new layout.
        case joinTable(name: String)
    }

    /// `SELECT owner, member, position, inverse_position …` over the old layout.
    var pairs: String
    var target: Target
    /// Whether an owner with several members keeps the last (else the first), by position then `_pk`.
    var keepsLast: Bool
}
