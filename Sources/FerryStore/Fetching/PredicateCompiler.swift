import FerrySQLite

/// Turns a predicate into SQL for one entity: resolves key paths against the schema (joins for to-one hops,
/// correlated subqueries for to-many ones) and hands the resolved operands to ``PredicateComparer``.
///
/// Key paths resolve in a *scope*: the entity's own table `t0`, or the table of a to-many subquery. Each scope
/// keeps the LEFT JOINs its to-one key paths need, one alias per distinct key path prefix.
struct PredicateCompiler {
    /// One FROM clause being built: a table alias and the joins hanging off it.
    struct Scope {
        var entity: String
        var alias: String
        var joins: [String] = []
        /// Alias of the joined table for each to-one key path prefix (`category`, `category.parent`).
        var joinAliases: [String: String] = [:]
    }

    /// The tables that hold the objects of a to-many relationship, correlated with the source row.
    struct ToManySource {
        /// `"Tag" AS "t2"`, or `"Product_tags" AS "t1" JOIN "Tag" AS "t2" ON …` for a join table.
        var from: String
        /// `"t1"."source" = "t0"."_pk"`.
        var correlation: String
        /// The `_ent` test when the destination shares its table with other entities.
        var entityTest: String?
        var destinationAlias: String
        var destinationEntity: String
    }

    let schema: StoreSchema
    let comparer: PredicateComparer
    private(set) var scopes: [Scope]
    private var aliasCount = 0
    /// The scope whose object a comparison's key paths start from: the fetched object's, or a SUBQUERY's.
    private var predicateScope = 0

    init(schema: StoreSchema, entity: String, predicate: FetchPredicate) {
        self.schema = schema
        self.comparer = PredicateComparer(entity: entity, predicate: predicate, model: schema.model)
        self.scopes = [Scope(entity: entity, alias: "t0")]
    }

    var rootAlias: String { scopes[0].alias }

    private mutating func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    /// `"alias"."column"`.
    static func column(_ alias: String, _ name: String) -> String {
        SQL.identifier(alias) + "." + SQL.identifier(name)
    }

    /// Opens a scope for the objects of a subquery; returns its index.
    mutating func pushScope(entity: String, alias: String) -> Int {
        scopes.append(Scope(entity: entity, alias: alias))
        return scopes.count - 1
    }

    /// Closes the innermost scope; returns the joins its key paths needed.
    mutating func popScope() -> [String] {
        scopes.removeLast().joins
    }

    /// Makes comparisons start their key paths from `scope`; returns the scope they started from before.
    mutating func enterPredicateScope(_ scope: Int) -> Int {
        defer { predicateScope = scope }
        return predicateScope
    }

    // MARK: Predicates

    mutating func compile(_ predicate: FetchPredicate) throws -> PredicateSQLFragment {
        switch predicate {
        case .truePredicate: return PredicateSQLFragment("1")
        case .falsePredicate: return PredicateSQLFragment("0")
        case .comparison(let comparison): return try compile(comparison)
        case .and(let lhs, let rhs): return "(" + (try compile(lhs)) + " AND " + (try compile(rhs)) + ")"
        case .or(let lhs, let rhs): return "(" + (try compile(lhs)) + " OR " + (try compile(rhs)) + ")"
        case .not(let predicate):
            // `IS NOT 1` is true for 0 and for NULL: a comparison with a missing value is false, so its negation
            // is true, as when Core Data evaluates the predicate in memory (SQL's NOT would keep NULL).
            return "(" + (try compile(predicate)) + ") IS NOT 1"
        }
    }

    private mutating func compile(_ comparison: FetchPredicate.Comparison) throws -> PredicateSQLFragment {
        let lhs = try operand(comparison.lhs, in: predicateScope)
        let rhs = try operand(comparison.rhs, in: predicateScope)
        let comparer = self.comparer
        let (compared, options) = (comparison.operator, comparison.options)
        guard comparison.modifier != .direct else {
            if case .toMany(let path) = rhs.kind, compared == .in, !lhs.isToMany {
                // `value IN toMany.keyPath` is membership: ANY toMany.keyPath == value.
                return try exists(path, negated: false) { try comparer.compare($0, .equalTo, lhs, options: options) }
            }
            for side in [lhs, rhs] where side.isToMany {
                throw comparer.error(
                    .toManyKeyPath,
                    "\(comparer.describe(side)) goes through a to-many relationship; use ANY, ALL, NONE or @count")
            }
            return try comparer.compare(lhs, compared, rhs, options: options)
        }
        let modifier = comparison.modifier.rawValue
        guard case .toMany(let path) = lhs.kind else {
            throw comparer.error(
                .unsupported,
                "\(modifier) needs a key path through a to-many relationship on its left, such as "
                    + "'tags.label'; \(comparer.describe(lhs)) is not one")
        }
        if rhs.isToMany {
            throw comparer.error(.toManyKeyPath, "\(comparer.describe(rhs)) goes through a to-many relationship")
        }
        let body = { (element: PredicateOperand) in try comparer.compare(element, compared, rhs, options: options) }
        switch comparison.modifier {
        case .all: return "NOT " + (try exists(path, negated: true, body))
        case .none: return "NOT " + (try exists(path, negated: false, body))
        case .any, .direct: return try exists(path, negated: false, body)
        }
    }

    /// `EXISTS (SELECT 1 FROM <related objects> WHERE <correlation> AND <body on each object>)`; a key path through
    /// several to-many relationships nests one EXISTS per relationship. With `negated`, the innermost condition is
    /// `(body) IS NOT 1`, so that `NOT EXISTS` of it means "all match".
    private mutating func exists(
        _ path: PredicateOperand.ToManyPath, negated: Bool, _ body: (PredicateOperand) throws -> PredicateSQLFragment
    ) throws -> PredicateSQLFragment {
        let source = try toManySource(path)
        scopes.append(Scope(entity: source.destinationEntity, alias: source.destinationAlias))
        let scope = scopes.count - 1
        let element: PredicateOperand
        if path.remainder.isEmpty {
            element = PredicateOperand(
                .column(Self.column(source.destinationAlias, "_pk"), .object(source.destinationEntity)),
                keyPath: path.keyPath)
        } else {
            element = try resolve(path.remainder, in: scope, shownAs: path.keyPath)
        }
        var condition: PredicateSQLFragment
        if case .toMany(let inner) = element.kind {
            condition = try exists(inner, negated: negated, body)
        } else {
            condition = try body(element)
            if negated { condition = "(" + condition + ") IS NOT 1" }
        }
        let joins = scopes.removeLast().joins
        var text =
            "EXISTS (SELECT 1 FROM " + ([source.from] + joins).joined(separator: " ") + " WHERE "
            + source.correlation
        if let test = source.entityTest { text += " AND " + test }
        return text + " AND " + condition + ")"
    }

    // MARK: Operands

    private mutating func operand(_ expression: FetchPredicate.Expression, in scope: Int) throws -> PredicateOperand {
        switch expression {
        case .keyPath(let path):
            return try resolve(
                path.split(separator: ".", omittingEmptySubsequences: false).map(String.init), in: scope,
                shownAs: path)
        case .evaluatedObject:
            let current = scopes[scope]
            return PredicateOperand(
                .column(Self.column(current.alias, "_pk"), .object(current.entity)), keyPath: "SELF")
        case .constant(let value):
            return PredicateOperand(.constant(value), keyPath: "")
        case .variable(let name):
            throw comparer.error(.unboundVariable, "$\(name) has no value: substitute it before compiling")
        case .aggregate(let elements):
            let values = try elements.map { element -> AttributeValue? in
                switch element {
                case .constant(let value): return value
                case .variable(let name):
                    throw comparer.error(.unboundVariable, "$\(name) has no value: substitute it before compiling")
                default: throw comparer.error(.unsupported, "an array literal may only hold constants: \(element)")
                }
            }
            return PredicateOperand(.list(values), keyPath: "")
        case .subquery(let subquery):
            return try count(subquery, in: scope)
        }
    }

    /// Resolves key path `components` from the scope's entity: to-one hops become joins in that scope, a to-many
    /// hop stops the walk (the caller opens a subquery), `to-many.@count` becomes a counting subquery.
    mutating func resolve(_ components: [String], in scope: Int, shownAs keyPath: String) throws
        -> PredicateOperand
    {
        let model = schema.model
        var entity = scopes[scope].entity
        var alias = scopes[scope].alias
        if components == ["SELF"] { return try operand(.evaluatedObject, in: scope) }
        for (index, name) in components.enumerated() {
            let isLast = index == components.count - 1
            if name.isEmpty {
                throw comparer.error(
                    .unknownKeyPath, "key path '\(keyPath)' of \(comparer.entity) has an empty component")
            }
            if name.hasPrefix("@") {
                throw comparer.error(
                    name == "@count" ? .unknownKeyPath : .unsupported,
                    name == "@count"
                        ? "@count must follow a to-many relationship (key path '\(keyPath)' of \(comparer.entity))"
                        : "'\(name)' is not supported in key path '\(keyPath)' of \(comparer.entity)")
            }
            if let attribute = model.allAttributes(of: entity).first(where: { $0.name == name }) {
                guard isLast else {
                    throw comparer.error(
                        .unknownKeyPath,
                        "key path '\(keyPath)' of \(comparer.entity) goes on past the attribute '\(name)'")
                }
                guard attribute.isStored, attribute.type.isPredicateComparable else {
                    throw comparer.error(
                        .unsupported,
                        "'\(name)' of \(entity) is \(attribute.isStored ? "transformable" : "transient"); "
                            + "the store cannot evaluate it (key path '\(keyPath)' of \(comparer.entity))")
                }
                return PredicateOperand(.column(Self.column(alias, name), .attribute(attribute.type)), keyPath: keyPath)
            }
            guard let relationship = model.allRelationships(of: entity).first(where: { $0.name == name }) else {
                throw comparer.error(
                    .unknownKeyPath,
                    "\(entity) has no attribute or relationship '\(name)' (key path '\(keyPath)' of \(comparer.entity))"
                )
            }
            if relationship.isToMany {
                let path = PredicateOperand.ToManyPath(
                    sourceAlias: alias, sourceEntity: entity, relationship: relationship,
                    remainder: Array(components[(index + 1)...]), keyPath: keyPath)
                guard path.remainder != ["@count"] else {
                    return PredicateOperand(.column(try count(path), .count), keyPath: keyPath)
                }
                if path.remainder.count > 1, let last = path.remainder.last,
                    let function = CollectionAggregate(operator: last),
                    !model.reachesToMany(path.remainder.dropLast(), from: relationship.destinationEntity)
                {
                    return try aggregate(function, of: path)
                }
                if let next = path.remainder.first, next.hasPrefix("@") {
                    throw comparer.error(
                        .unsupported, "'\(next)' is not supported in key path '\(keyPath)' of \(comparer.entity)")
                }
                return PredicateOperand(.toMany(path), keyPath: keyPath)
            }
            let foreignKey = schema.mapping(for: entity)?.foreignKeys[name]?.column ?? name
            if isLast {
                return PredicateOperand(
                    .column(Self.column(alias, foreignKey), .object(relationship.destinationEntity)), keyPath: keyPath)
            }
            let prefix = components[...index].joined(separator: ".")
            alias = join(prefix, in: scope, from: alias, foreignKey: foreignKey, to: relationship.destinationEntity)
            entity = relationship.destinationEntity
        }
        throw comparer.error(.unknownKeyPath, "key path '\(keyPath)' of \(comparer.entity) is empty")
    }

    /// The alias of the table a to-one key path prefix leads to, adding its LEFT JOIN to the scope on first use.
    private mutating func join(
        _ prefix: String, in scope: Int, from sourceAlias: String, foreignKey: String, to destination: String
    ) -> String {
        if let alias = scopes[scope].joinAliases[prefix] { return alias }
        let alias = newAlias()
        let table = schema.mapping(for: destination)?.table ?? schema.model.rootEntity(of: destination)
        scopes[scope].joins.append(
            "LEFT JOIN \(SQL.identifier(table)) AS \(SQL.identifier(alias)) ON \(Self.column(alias, "_pk")) = "
                + Self.column(sourceAlias, foreignKey))
        scopes[scope].joinAliases[prefix] = alias
        return alias
    }

    /// `(SELECT COUNT(*) FROM <related objects> WHERE <correlation>)`.
    private mutating func count(_ path: PredicateOperand.ToManyPath) throws -> String {
        let source = try toManySource(path)
        let conditions = [source.correlation] + (source.entityTest.map { [$0] } ?? [])
        return "(SELECT COUNT(*) FROM \(source.from) WHERE \(conditions.joined(separator: " AND ")))"
    }

    /// Where the objects of a to-many relationship live: the destination table through a join table (many-to-many,
    /// or no inverse), or the destination table's foreign key column named after the to-one inverse.
    mutating func toManySource(_ path: PredicateOperand.ToManyPath) throws -> ToManySource {
        let relationship = path.relationship
        let destination = relationship.destinationEntity
        guard let mapping = schema.mapping(for: destination) else {
            throw comparer.error(
                .unknownEntity, "the model has no entity '\(destination)' (key path '\(path.keyPath)')")
        }
        let source = Self.column(path.sourceAlias, "_pk")
        if let joinTable = schema.joinTable(for: relationship.name, of: path.sourceEntity) {
            let isOwner =
                joinTable.relationship == relationship.name
                && schema.model.ancestry(of: path.sourceEntity).contains { $0.name == joinTable.sourceEntity }
            let (mine, theirs) = isOwner ? ("source", "destination") : ("destination", "source")
            let joinAlias = newAlias()
            let alias = newAlias()
            return ToManySource(
                from: "\(SQL.identifier(joinTable.name)) AS \(SQL.identifier(joinAlias)) JOIN "
                    + "\(SQL.identifier(mapping.table)) AS \(SQL.identifier(alias)) ON \(Self.column(alias, "_pk")) = "
                    + Self.column(joinAlias, theirs),
                correlation: Self.column(joinAlias, mine) + " = " + source,
                entityTest: entityTest(alias: alias, table: mapping.table, ids: mapping.hierarchyIDs),
                destinationAlias: alias, destinationEntity: destination)
        }
        guard let inverse = relationship.inverseName, let foreignKey = mapping.foreignKeys[inverse] else {
            throw comparer.error(
                .unsupported,
                "the to-many relationship '\(relationship.name)' of \(path.sourceEntity) has no storage "
                    + "(key path '\(path.keyPath)')")
        }
        let alias = newAlias()
        return ToManySource(
            from: "\(SQL.identifier(mapping.table)) AS \(SQL.identifier(alias))",
            correlation: Self.column(alias, foreignKey.column) + " = " + source,
            entityTest: entityTest(alias: alias, table: mapping.table, ids: mapping.hierarchyIDs),
            destinationAlias: alias, destinationEntity: destination)
    }

    /// `"alias"."_ent" IN (…)` limiting rows to the entity IDs `ids`, or `nil` when the table holds nothing else.
    ///
    /// The IDs come from the schema, never from a caller, so they are written into the SQL: the text stays the
    /// same for an entity, and the query planner can match partial indexes declared with the same test.
    func entityTest(alias: String, table: String, ids: [Int]) -> String? {
        let tableIDs = Set(schema.entities.values.filter { $0.table == table }.map(\.entityID))
        guard Set(ids) != tableIDs, let first = ids.first else { return nil }
        let column = Self.column(alias, "_ent")
        return ids.count == 1
            ? "\(column) = \(first)" : "\(column) IN (\(ids.map(String.init).joined(separator: ", ")))"
    }
}
