import FerrySQLite

/// Derived attributes, as Core Data's, kept right by SQLite triggers, so that every writer — context saves, batch
/// requests, plain SQL on a connection with the store's functions — leaves them correct.
///
/// Each trigger is `AFTER INSERT`, `AFTER DELETE` or `AFTER UPDATE OF <the columns the value depends on>` on a
/// table the value depends on, and sets the derived column of the rows the change affects:
///
/// - `now()`: the row's own insert, and updates of any of its columns that are not derived (every save bumps
///   `_opt`, so every save counts; a derived value changing does not), to `julianday('now')` as Unix seconds,
///   rounded to the millisecond.
/// - a key path (`category.name`) and `canonical:`/`lowercase:`/`uppercase:` of one: the row's insert and updates
///   of its first key; inserts, deletes and updates of the next key (or the attribute) on each table the path
///   crosses. A dangling key copies NULL.
/// - `@count` and `@sum` over a to-many: computed in full when the owner is inserted; then kept by increments on
///   each insert, delete and re-pointing of a member (and change of the summed attribute) when the arithmetic is
///   exact — counts, integer sums into an integer, integer or decimal sums into a decimal (through
///   `ferry_decimal`, so decimal text stays exact). Other sums (floating point, or any sum through a join table,
///   where a member may be gone before its join row) are recomputed in full for the affected owners: an increment
///   would let rounding drift, or could not see the deleted member's value. An empty to-many sums to 0.
/// - `@avg`, `@min` and `@max` over a to-many: never kept by increments (an extreme cannot be taken back when its
///   member goes, and a running mean drifts). The owner's insert, each insert, delete and re-pointing of a member
///   (both owners, when a member moves) and each change of the aggregated attribute recompute the value in full
///   for the affected owners, as SQL's `avg`, `min` and `max` do: members whose attribute is NULL are left out, and
///   an empty to-many (or one whose values are all NULL) gives NULL, where `@sum` gives 0. `@avg` of integers or
///   floating point into a double or float is SQL's `avg`; of decimals, or into a decimal, it is
///   `ferry_decimal_avg`: the exact sum divided by the count in `Decimal` (38 significant digits, so `1/3` is
///   rounded there). `@min` and `@max` of decimals go through `ferry_decimal_min` and `ferry_decimal_max`, which
///   compare the values as numbers (as text, `10` sorts before `9`); of other types they are SQL's `min` and
///   `max`: numbers and dates numerically, strings in SQLite's BINARY order (Unicode code points, as predicates
///   compare strings).
///
/// Triggers are created with `IF NOT EXISTS`, with names built from the entity, the attribute, the event and the
/// table (`ferry_derived_Category_productCount_insert_Product`), and in model order, so the same model always
/// gives the same SQL. They call `ferry_fold` (canonical: folds case and diacritics, as `[cd]` predicates do),
/// `ferry_lowercase`, `ferry_uppercase`, `ferry_decimal`, `ferry_decimal_sum`, `ferry_decimal_avg`,
/// `ferry_decimal_min` and `ferry_decimal_max`; see
/// `PersistentStore.registerSQLFunctions(on:)`.
extension StoreSchema {
    /// The `CREATE TRIGGER IF NOT EXISTS` statements that maintain the model's derived attributes, in model order.
    var derivationTriggerStatements: [String] {
        var builder = DerivationTriggerBuilder(schema: self)
        for entity in model.entities {
            for attribute in entity.attributes where attribute.isStored {
                guard let expression = attribute.derivation,
                    let form = ModelValidator.derivationForm(expression),
                    let mapping = mapping(for: entity.name)
                else { continue }
                builder.add(form, for: attribute, in: mapping)
            }
        }
        return builder.statements
    }

    /// One `UPDATE` per derived attribute that sets the value of every row of its entity from scratch, in set-based
    /// SQL (what a migration runs when a derivation is added or changed), keyed by `"Entity.attribute"`, in model
    /// order. A `now()` stamp is given only to rows without one: a time of change cannot be recovered.
    var derivationRecomputeStatements: [(attribute: String, sql: String)] {
        let builder = DerivationTriggerBuilder(schema: self)
        var statements: [(attribute: String, sql: String)] = []
        for entity in model.entities {
            for attribute in entity.attributes where attribute.isStored {
                guard let expression = attribute.derivation,
                    let form = ModelValidator.derivationForm(expression),
                    let mapping = mapping(for: entity.name),
                    let sql = builder.recompute(form, for: attribute, in: mapping)
                else { continue }
                statements.append(("\(entity.name).\(attribute.name)", sql))
            }
        }
        return statements
    }
}

/// Builds the triggers of one schema's derived attributes.
private struct DerivationTriggerBuilder {
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
    ) -> (aggregate: Aggregate, members: Members, destination: StoreSchema.EntityMapping, full: String)? {
        guard
            let relationship = model.allRelationships(of: target.entity).first(where: { $0.name == relationshipName }),
            let destination = schema.mapping(for: relationship.destinationEntity)
        else { return nil }
        let kind: Aggregate.Kind
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
        let aggregate = Aggregate(target: target, kind: kind)
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
    private func fullValue(_ aggregate: Aggregate, _ members: Members, _ destination: StoreSchema.EntityMapping)
        -> String
    {
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
        _ target: Target, _ aggregate: Aggregate, _ full: String, _ column: String,
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
        _ target: Target, _ aggregate: Aggregate, _ full: String, _ join: String, _ mine: String, _ theirs: String,
        _ destination: StoreSchema.EntityMapping
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

/// A `@count`, or an aggregate of the members' attribute, as SQL: the full value, and the increments when they are
/// exact.
private struct Aggregate {
    /// What is aggregated.
    enum Kind {
        /// `@count`: the members themselves.
        case count
        /// `@sum`, `@avg`, `@min` or `@max` of the members' attribute.
        case taking(ModelValidator.AggregateFunction, AttributeDescription)
    }

    let target: DerivationTriggerBuilder.Target
    let kind: Kind

    /// The members' attribute the value depends on; `nil` for `@count`.
    var attribute: AttributeDescription? {
        guard case .taking(_, let attribute) = kind else { return nil }
        return attribute
    }

    /// `function` of the decimal values of `column` (decimal text, integers or reals), through `group_concat`.
    private func decimal(_ function: String, _ column: String) -> String {
        "\(function)(group_concat(\(column), ' '))"
    }

    /// The aggregate over the members aliased `alias`.
    func function(_ alias: String) -> String {
        guard case .taking(let function, let attribute) = kind else { return "count(*)" }
        let column = "\(alias).\(SQL.identifier(attribute.name))"
        switch function {
        case .sum: return sum(column, of: attribute)
        case .avg:
            guard target.type == .decimal || attribute.type == .decimal else { return "avg(\(column))" }
            let average = decimal(DerivationSQLFunctions.decimalAverage, column)
            return target.type == .decimal ? average : "CAST(\(average) AS REAL)"
        case .min, .max:
            // Decimal text must compare as numbers ("10" sorts before "9" as text).
            guard attribute.type == .decimal else { return "\(function.rawValue)(\(column))" }
            return decimal(
                function == .min ? DerivationSQLFunctions.decimalMinimum : DerivationSQLFunctions.decimalMaximum,
                column)
        }
    }

    private func sum(_ column: String, of attribute: AttributeDescription) -> String {
        let decimalSum = decimal(DerivationSQLFunctions.decimalSum, column)
        switch (target.type, attribute.type) {
        case (.decimal, _): return decimalSum
        case (let type, let source) where type.isInteger && source.isInteger: return "coalesce(sum(\(column)), 0)"
        case (let type, .decimal) where type.isInteger: return "CAST(\(decimalSum) AS INTEGER)"
        case (let type, _) where type.isInteger: return "CAST(total(\(column)) AS INTEGER)"
        case (_, .decimal): return "CAST(\(decimalSum) AS REAL)"
        default: return "total(\(column))"
        }
    }

    /// Whether adding and removing one member's value is exact, so the triggers may use increments: counts and
    /// exact sums. Averages drift and extremes cannot be taken back, so they are always computed in full.
    var isIncremental: Bool {
        switch kind {
        case .count: return true
        case .taking(.sum, let attribute):
            if target.type.isInteger { return attribute.type.isInteger }
            return target.type == .decimal && (attribute.type.isInteger || attribute.type == .decimal)
        case .taking: return false
        }
    }

    /// The derived value with the member `row` (`NEW` or `OLD`) added.
    func adding(_ row: String) -> String { step("+", row) }

    /// The derived value with the member `row` taken away.
    func removing(_ row: String) -> String { step("-", row) }

    private func step(_ operation: String, _ row: String) -> String {
        let current = "coalesce(\(SQL.identifier(target.column)), 0)"
        guard let attribute else { return "\(current) \(operation) 1" }
        let value = "coalesce(\(row).\(SQL.identifier(attribute.name)), 0)"
        if target.type == .decimal {
            return "\(BatchSQLFunctions.decimal)('\(operation)', \(current), \(value))"
        }
        return "\(current) \(operation) \(value)"
    }
}

/// `name` as a quoted SQL identifier.
private func q(_ name: String) -> String { SQL.identifier(name) }

/// Entity numbers as the inside of an `IN (…)` list.
private func list(_ ids: [Int]) -> String { ids.map(String.init).joined(separator: ", ") }
