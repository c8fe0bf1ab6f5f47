import FerrySQLite

/// Builds the triggers of one schema's derived attributes.
struct DerivationTriggerBuilder {
    /// The derived column and the rows it belongs to.
    struct Target {
        let entity: String
        let table: String
        let column: String
        let entityIDs: [Int]
        let type: AttributeType
    }

    enum Event {
        case insert
        case delete
        case update(of: [String])
    }

    let schema: StoreSchema
    private(set) var statements: [String] = []
    private var namesUsed: [String: Int] = [:]

    init(schema: StoreSchema) {
        self.schema = schema
    }

    private var model: ManagedObjectModel { schema.model }

    mutating func add(
        _ form: ModelValidator.DerivationForm, for attribute: AttributeDescription,
        in mapping: StoreSchema.EntityMapping
    ) {
        let target = Target(
            entity: mapping.entity, table: mapping.table, column: attribute.name, entityIDs: mapping.hierarchyIDs,
            type: attribute.type)
        switch form {
        case .now: addNow(target, mapping)
        case .keyPath(let path): addCopy(target, path, transform: nil)
        case .function(let name, let path): addCopy(target, path, transform: name)
        case .count(let relationship): addAggregate(target, relationship, taking: nil)
        case .aggregate(let function, let relationship, let attribute):
            addAggregate(target, relationship, taking: (function, attribute))
        }
    }

    /// The statement that sets the derived column of every row of the target entity from scratch.
    func recompute(
        _ form: ModelValidator.DerivationForm, for attribute: AttributeDescription,
        in mapping: StoreSchema.EntityMapping
    ) -> String? {
        let target = Target(
            entity: mapping.entity, table: mapping.table, column: attribute.name, entityIDs: mapping.hierarchyIDs,
            type: attribute.type)
        switch form {
        case .now: return assign(target, Self.now, where: "\(q(target.column)) IS NULL")
        case .keyPath(let path):
            return copyPath(target, path, transform: nil).map { assign(target, $0.value, where: "1") }
        case .function(let name, let path):
            return copyPath(target, path, transform: name).map { assign(target, $0.value, where: "1") }
        case .count(let relationship):
            return aggregateParts(target, relationship, taking: nil).map { assign(target, $0.full, where: "1") }
        case .aggregate(let function, let relationship, let attribute):
            return aggregateParts(target, relationship, taking: (function, attribute)).map {
                assign(target, $0.full, where: "1")
            }
        }
    }

    // MARK: now()

    /// Unix seconds (the store's date encoding), to the millisecond `julianday` gives.
    static let now = "round((julianday('now') - 2440587.5) * 86400.0, 3)"

    private mutating func addNow(_ target: Target, _ mapping: StoreSchema.EntityMapping) {
        let stamp = [assign(target, Self.now, where: "\(q("_pk")) = NEW.\(q("_pk"))")]
        trigger(target, .insert, on: target.table, when: isOwnRow(target, "NEW"), stamp)
        // Every column a save (or plain SQL) writes; derived columns are left out, so a count or a copy that the
        // store updates does not count as a save of the row.
        var columns = ["_opt"] + mapping.attributes.filter { $0.derivation == nil }.map(\.name)
        for key in mapping.foreignKeys.values.sorted(by: { $0.column < $1.column }) {
            columns.append(key.column)
            if let entityColumn = key.entityColumn { columns.append(entityColumn) }
        }
        columns += schema.orderColumns(inTable: target.table)
        trigger(target, .update(of: columns), on: target.table, when: isOwnRow(target, "NEW"), stamp)
    }

    // MARK: Key paths and string functions

    /// The tables a key path crosses (`tables[i]` holds the rows reached after i + 1 relationships) and the value it
    /// copies, as SQL over the target's table.
    private func copyPath(
        _ target: Target, _ path: [String], transform: String?
    ) -> (tables: [String], value: String)? {
        guard let attribute = path.last else { return nil }
        // The tables the path crosses: tables[i] holds the rows reached after i + 1 relationships.
        var tables: [String] = []
        var entity = target.entity
        for name in path.dropLast() {
            guard let relationship = model.allRelationships(of: entity).first(where: { $0.name == name }) else {
                return nil
            }
            entity = relationship.destinationEntity
            tables.append(model.rootEntity(of: entity))
        }
        var value = "\(q(target.table)).\(q(attribute))"
        if !tables.isEmpty {
            // Aliases from Ferry's namespace: a plain `d1` would hide a target table named `D1`.
            let hop = { (index: Int) in SQL.alias("d\(index)") }
            var from = "\(q(tables[0])) AS \(hop(1))"
            for index in tables.indices.dropFirst() {
                from +=
                    " JOIN \(q(tables[index])) AS \(hop(index + 1)) ON \(hop(index + 1)).\(q("_pk")) = \(hop(index))."
                    + q(path[index])
            }
            value =
                "(SELECT \(hop(tables.count)).\(q(attribute)) FROM \(from) "
                + "WHERE \(hop(1)).\(q("_pk")) = \(q(target.table)).\(q(path[0])))"
        }
        switch transform {
        case "canonical": value = "\(PredicateSQLFunctions.fold)(\(value), 1, 1)"
        case "lowercase": value = "\(DerivationSQLFunctions.lowercase)(\(value))"
        case "uppercase": value = "\(DerivationSQLFunctions.uppercase)(\(value))"
        default: break
        }
        return (tables, value)
    }

    private mutating func addCopy(_ target: Target, _ path: [String], transform: String?) {
        guard let (tables, value) = copyPath(target, path, transform: transform) else { return }
        let ownRow = [assign(target, value, where: "\(q("_pk")) = NEW.\(q("_pk"))")]
        trigger(target, .insert, on: target.table, when: isOwnRow(target, "NEW"), ownRow)
        trigger(target, .update(of: [path[0]]), on: target.table, when: isOwnRow(target, "NEW"), ownRow)
        for hop in tables.indices {
            let column = path[hop + 1]
            // The derived rows whose path reaches the row `key` of tables[hop].
            func reaching(_ key: String) -> String {
                var condition = "\(q(path[hop])) = \(key)"
                for level in stride(from: hop, to: 0, by: -1) {
                    condition =
                        "\(q(path[level - 1])) IN (SELECT \(q("_pk")) FROM \(q(tables[level - 1])) "
                        + "WHERE \(condition))"
                }
                return condition
            }
            let table = tables[hop]
            trigger(target, .insert, on: table, when: nil, [assign(target, value, where: reaching("NEW.\(q("_pk"))"))])
            trigger(target, .delete, on: table, when: nil, [assign(target, value, where: reaching("OLD.\(q("_pk"))"))])
            trigger(
                target, .update(of: [column]), on: table, when: "OLD.\(q(column)) IS NOT NEW.\(q(column))",
                [assign(target, value, where: reaching("NEW.\(q("_pk"))"))])
        }
    }

    // MARK: @count, @sum, @avg, @min, @max

    /// Where a to-many's members are found, seen from the owner.
    private enum Members {
        /// A key column on the destination's table.
        case foreignKey(column: String)
        /// A join table; `mine` holds the owner's key, `theirs` the member's.
        case joinTable(name: String, mine: String, theirs: String)
    }

    /// The parts of `@count` (`source` nil) or of `source.function` over the members' `source.attribute`: the
    /// aggregate, where the members are, their entity, and the full value as SQL over the owner's table.
    private func aggregateParts(
        _ target: Target, _ relationshipName: String,
        taking source: (function: ModelValidator.AggregateFunction, attribute: String)?
    ) -> (aggregate: DerivationAggregate, members: Members, destination: StoreSchema.EntityMapping, full: String)? {
        guard
            let relationship = model.allRelationships(of: target.entity).first(where: { $0.name == relationshipName }),
            let destination = schema.mapping(for: relationship.destinationEntity)
        else { return nil }
        let kind: DerivationAggregate.Kind
        if let source {
            guard let attribute = destination.attributes.first(where: { $0.name == source.attribute }) else {
                return nil
            }
            kind = .taking(source.function, attribute)
        } else {
            kind = .count
        }
        let members: Members
        let inverse = relationship.inverseName.flatMap { name in
            model.allRelationships(of: destination.entity).first { $0.name == name }
        }
        if let inverse, !inverse.isToMany {
            members = .foreignKey(column: inverse.name)
        } else if let join = schema.joinTable(for: relationship.name, of: target.entity) {
            let ownerIsSource =
                join.relationship == relationship.name
                && model.ancestry(of: target.entity).contains { $0.name == join.sourceEntity }
            members = .joinTable(
                name: join.name, mine: ownerIsSource ? "source" : "destination",
                theirs: ownerIsSource ? "destination" : "source")
        } else {
            return nil
        }
        let aggregate = DerivationAggregate(target: target, kind: kind)
        return (aggregate, members, destination, fullValue(aggregate, members, destination))
    }

    /// Adds the triggers of `@count` (`source` nil) or of `source.function` over the members' `source.attribute`.
    private mutating func addAggregate(
        _ target: Target, _ relationshipName: String,
        taking source: (function: ModelValidator.AggregateFunction, attribute: String)?
    ) {
        guard let (aggregate, members, destination, full) = aggregateParts(target, relationshipName, taking: source)
        else { return }
        trigger(
            target, .insert, on: target.table, when: isOwnRow(target, "NEW"),
            [assign(target, full, where: "\(q("_pk")) = NEW.\(q("_pk"))")])
        switch members {
        case .foreignKey(let column):
            addForeignKeyTriggers(target, aggregate, full, column, destination)
        case .joinTable(let name, let mine, let theirs):
            addJoinTableTriggers(target, aggregate, full, name, mine, theirs, destination)
        }
    }

    /// The aggregate of one owner's members (the owner is the row being updated).
    private func fullValue(
        _ aggregate: DerivationAggregate, _ members: Members, _ destination: StoreSchema.EntityMapping
    ) -> String {
        let owner = "\(q(aggregate.target.table)).\(q("_pk"))"
        // Aliases from Ferry's namespace: a plain `d` or `j` would hide an owner table named `D` or `J`.
        let (d, j) = (SQL.alias("d"), SQL.alias("j"))
        switch members {
        case .foreignKey(let column):
            return "(SELECT \(aggregate.function(d)) FROM \(q(destination.table)) AS \(d) "
                + "WHERE \(d).\(q(column)) = \(owner) AND \(d).\(q("_ent")) IN (\(list(destination.hierarchyIDs))))"
        case .joinTable(let name, let mine, let theirs):
            guard aggregate.attribute != nil else {
                return "(SELECT count(*) FROM \(q(name)) AS \(j) WHERE \(j).\(q(mine)) = \(owner))"
            }
            return "(SELECT \(aggregate.function(d)) FROM \(q(name)) AS \(j) JOIN \(q(destination.table)) AS \(d) "
                + "ON \(d).\(q("_pk")) = \(j).\(q(theirs)) WHERE \(j).\(q(mine)) = \(owner))"
        }
    }

    private mutating func addForeignKeyTriggers(
        _ target: Target, _ aggregate: DerivationAggregate, _ full: String, _ column: String,
        _ destination: StoreSchema.EntityMapping
    ) {
        let table = destination.table
        let key = q(column)
        let isMember = { (row: String) in
            "\(row).\(key) IS NOT NULL AND \(row).\(q("_ent")) IN (\(list(destination.hierarchyIDs)))"
        }
        var watched = [column]
        var changed = "OLD.\(key) IS NOT NEW.\(key)"
        if let attribute = aggregate.attribute {
            watched.append(attribute.name)
            changed += " OR OLD.\(q(attribute.name)) IS NOT NEW.\(q(attribute.name))"
        }
        let owner = { (row: String) in "\(q("_pk")) = \(row).\(key)" }
        if aggregate.isIncremental {
            trigger(
                target, .insert, on: table, when: isMember("NEW"),
                [assign(target, aggregate.adding("NEW"), where: owner("NEW"))])
            trigger(
                target, .delete, on: table, when: isMember("OLD"),
                [assign(target, aggregate.removing("OLD"), where: owner("OLD"))])
            trigger(
                target, .update(of: watched), on: table,
                when: "(\(changed)) AND NEW.\(q("_ent")) IN (\(list(destination.hierarchyIDs)))",
                [
                    assign(target, aggregate.removing("OLD"), where: owner("OLD")),
                    assign(target, aggregate.adding("NEW"), where: owner("NEW")),
                ])
        } else {
            trigger(target, .insert, on: table, when: isMember("NEW"), [assign(target, full, where: owner("NEW"))])
            trigger(target, .delete, on: table, when: isMember("OLD"), [assign(target, full, where: owner("OLD"))])
            trigger(
                target, .update(of: watched), on: table,
                when: "(\(changed)) AND NEW.\(q("_ent")) IN (\(list(destination.hierarchyIDs)))",
                [assign(target, full, where: "\(q("_pk")) IN (OLD.\(key), NEW.\(key))")])
        }
    }

    private mutating func addJoinTableTriggers(
        _ target: Target, _ aggregate: DerivationAggregate, _ full: String, _ join: String, _ mine: String,
        _ theirs: String, _ destination: StoreSchema.EntityMapping
    ) {
        let owner = { (row: String) in "\(q("_pk")) = \(row).\(q(mine))" }
        guard let attribute = aggregate.attribute else {
            // A count needs only the join rows, so increments stay exact whatever order rows go in.
            trigger(
                target, .insert, on: join, when: nil, [assign(target, aggregate.adding("NEW"), where: owner("NEW"))])
            trigger(
                target, .delete, on: join, when: nil, [assign(target, aggregate.removing("OLD"), where: owner("OLD"))])
            trigger(
                target, .update(of: [mine]), on: join, when: "OLD.\(q(mine)) IS NOT NEW.\(q(mine))",
                [
                    assign(target, aggregate.removing("OLD"), where: owner("OLD")),
                    assign(target, aggregate.adding("NEW"), where: owner("NEW")),
                ])
            return
        }
        trigger(target, .insert, on: join, when: nil, [assign(target, full, where: owner("NEW"))])
        trigger(target, .delete, on: join, when: nil, [assign(target, full, where: owner("OLD"))])
        trigger(
            target, .update(of: [mine, theirs]), on: join, when: nil,
            [assign(target, full, where: "\(q("_pk")) IN (OLD.\(q(mine)), NEW.\(q(mine)))")])
        let owners = { (row: String) in
            "\(q("_pk")) IN (SELECT \(q(mine)) FROM \(q(join)) WHERE \(q(theirs)) = \(row).\(q("_pk")))"
        }
        let table = destination.table
        trigger(target, .insert, on: table, when: nil, [assign(target, full, where: owners("NEW"))])
        trigger(target, .delete, on: table, when: nil, [assign(target, full, where: owners("OLD"))])
        trigger(
            target, .update(of: [attribute.name]), on: table,
            when: "OLD.\(q(attribute.name)) IS NOT NEW.\(q(attribute.name))",
            [assign(target, full, where: owners("NEW"))])
    }

    // MARK: SQL

    private func isOwnRow(_ target: Target, _ row: String) -> String {
        "\(row).\(q("_ent")) IN (\(list(target.entityIDs)))"
    }

    /// `UPDATE <table> SET <column> = value WHERE condition`, limited to the target entity's rows.
    private func assign(_ target: Target, _ value: String, where condition: String) -> String {
        "UPDATE \(q(target.table)) SET \(q(target.column)) = \(value) WHERE (\(condition)) AND \(q("_ent")) IN "
            + "(\(list(target.entityIDs)))"
    }

    /// Appends `CREATE TRIGGER IF NOT EXISTS … AFTER <event> ON <table> [WHEN …] BEGIN <body>; END`.
    private mutating func trigger(
        _ target: Target, _ event: Event, on table: String, when condition: String?, _ body: [String]
    ) {
        let (word, clause): (String, String)
        switch event {
        case .insert: (word, clause) = ("insert", "INSERT")
        case .delete: (word, clause) = ("delete", "DELETE")
        case .update(let columns): (word, clause) = ("update", "UPDATE OF " + columns.map(q).joined(separator: ", "))
        }
        var name = "ferry_derived_\(target.entity)_\(target.column)_\(word)_\(table)"
        let uses = (namesUsed[name] ?? 0) + 1
        namesUsed[name] = uses
        if uses > 1 { name += "_\(uses)" }
        var sql = "CREATE TRIGGER IF NOT EXISTS \(q(name)) AFTER \(clause) ON \(q(table))"
        if let condition { sql += " WHEN \(condition)" }
        sql += " BEGIN " + body.map { $0 + "; " }.joined() + "END"
        statements.append(sql)
    }
}

/// `name` as a quoted SQL identifier.
private func q(_ name: String) -> String { SQL.identifier(name) }

/// Entity numbers as the inside of an `IN (…)` list.
private func list(_ ids: [Int]) -> String { ids.map(String.init).joined(separator: ", ") }
