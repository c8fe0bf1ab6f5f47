package import FerrySQLite

/// A fetch request compiled to one SQL statement, with what the executor needs to read its rows.
struct FetchQuery {
    /// How to turn one result column back into a value.
    enum Decoding: Hashable {
        /// The column holds an attribute in its storage encoding.
        case attribute(AttributeType)
        /// An integer (counts).
        case integer
        /// A double (sums of doubles, averages of numbers).
        case double
        /// The decimal texts of a group, separated by spaces, aggregated exactly in Swift: SQL would go through
        /// doubles.
        case decimalAggregate(FetchAggregate.Function)
    }

    /// One result column of a dictionary fetch.
    struct Column: Hashable {
        /// The dictionary key: the key path or the aggregate's name.
        var key: String
        var decoding: Decoding
        /// For a to-one relationship, how to make its object ID from the primary key the column holds.
        var object: ObjectColumn? = nil
    }

    var sql: String
    var bindings: [SQLiteValue]
    /// For dictionary fetches, the result columns in order; empty otherwise (object IDs read `_pk` and `_ent`,
    /// counts read one integer).
    var columns: [Column]
}

extension FetchRequest {
    /// The SQL statement that runs this request, and the values to bind to its `?` parameters, in order.
    ///
    /// - ``ResultType/managedObjectID`` and ``ResultType/managedObject`` (contexts turn the IDs into objects):
    ///   `SELECT "t0"."_pk", "t0"."_ent" FROM … WHERE … ORDER BY …, "t0"."_pk" LIMIT ? OFFSET ?`.
    /// - ``ResultType/count``: `SELECT COUNT(*) …`, counting within the limit and offset when there are any.
    /// - ``ResultType/dictionary``: the columns of ``propertiesToFetch`` and ``aggregates``, with `DISTINCT` and
    ///   `GROUP BY` as asked.
    ///
    /// FROM and WHERE come from the predicate (``FetchPredicate/sql(for:in:includesSubentities:)``), which also
    /// limits rows to the entity (and its sub-entities when ``includesSubentities``) with `_ent`. Key paths of sort
    /// descriptors, properties and groups get their own LEFT JOINs, aliased `k1`, `k2`…. Values (the predicate's,
    /// the limit and offset) are always bound, never written into the text, and identifiers are quoted, so the
    /// text depends only on the request's shape.
    ///
    /// The SQL may call `ferry_fold`: run it on a connection set up with
    /// `FetchPredicate.registerSQLFunctions(on:)`.
    ///
    /// - Throws: ``FetchRequestError`` naming the entity and key path (`.unknownEntity`, `.unknownKeyPath`,
    ///   `.toManyKeyPath`, `.invalidRequest`), or ``FetchPredicateError`` from compiling the predicate.
    package func query(in schema: StoreSchema) throws -> (sql: String, bindings: [SQLiteValue]) {
        let compiled = try compile(in: schema)
        return (compiled.sql, compiled.bindings)
    }

    /// Compiles the request; see `query(in:)`. A `restriction` adds a condition of its own (with its bindings, after
    /// the predicate's) on the entity's rows, such as "changed since a history token".
    func compile(in schema: StoreSchema, restriction: RowRestriction? = nil) throws -> FetchQuery {
        guard schema.mapping(for: entityName) != nil else {
            throw FetchRequestError(
                code: .unknownEntity, message: "the model has no entity '\(entityName)'", entityName: entityName)
        }
        guard fetchLimit >= 0, fetchOffset >= 0 else {
            throw FetchRequestError(
                code: .invalidRequest,
                message: "fetch of \(entityName): fetchLimit and fetchOffset cannot be negative",
                entityName: entityName)
        }
        var predicateSQL = try (predicate ?? .truePredicate).sql(
            for: entityName, in: schema, includesSubentities: includesSubentities)
        if let restriction {
            predicateSQL.whereClause = "(\(predicateSQL.whereClause)) AND " + restriction.condition(predicateSQL.alias)
            predicateSQL.bindings += restriction.bindings
        }
        var resolver = FetchKeyPathResolver(schema: schema, entity: entityName, rootAlias: predicateSQL.alias)
        let pk = FetchKeyPathResolver.column(predicateSQL.alias, "_pk")
        switch resultType {
        case .managedObject, .managedObjectID:
            let order = try orderTerms(&resolver) + [pk]
            let select = "SELECT \(pk), \(FetchKeyPathResolver.column(predicateSQL.alias, "_ent"))"
            return assemble(select, predicateSQL, resolver, order: order, columns: [])
        case .count:
            // Sorting does not change a count; the descriptors are still checked so that a bad key path fails
            // the same way whatever the result type.
            var unused = resolver
            _ = try orderTerms(&unused)
            guard fetchLimit > 0 || fetchOffset > 0 else {
                return assemble("SELECT COUNT(*)", predicateSQL, resolver, order: [], columns: [])
            }
            let inner = assemble("SELECT \(pk)", predicateSQL, resolver, order: [pk], columns: [])
            return FetchQuery(sql: "SELECT COUNT(*) FROM (\(inner.sql))", bindings: inner.bindings, columns: [])
        case .dictionary:
            return try compileDictionary(predicateSQL, &resolver)
        }
    }

    /// `SELECT … FROM … WHERE … [GROUP BY …] [ORDER BY …] [LIMIT ? OFFSET ?]` with its bindings: the predicate's,
    /// then the limit's and the offset's.
    private func assemble(
        _ select: String, _ predicateSQL: PredicateSQL, _ resolver: FetchKeyPathResolver, groupBy: [String] = [],
        having: PredicateSQLFragment? = nil, order: [String], columns: [FetchQuery.Column]
    ) -> FetchQuery {
        var sql = select + " FROM " + ([predicateSQL.fromClause] + resolver.joins).joined(separator: " ")
        sql += " WHERE " + predicateSQL.whereClause
        if !groupBy.isEmpty { sql += " GROUP BY " + groupBy.joined(separator: ", ") }
        if let having { sql += " HAVING " + having.text }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        var bindings = predicateSQL.bindings + (having?.bindings ?? [])
        if fetchLimit > 0 || fetchOffset > 0 {
            // SQLite has no OFFSET without LIMIT; a negative limit means none.
            sql += " LIMIT ? OFFSET ?"
            bindings += [.integer(fetchLimit > 0 ? Int64(fetchLimit) : -1), .integer(Int64(fetchOffset))]
        }
        return FetchQuery(sql: sql, bindings: bindings, columns: columns)
    }

    /// ORDER BY terms for the sort descriptors, without the tie-breaker.
    private func orderTerms(_ resolver: inout FetchKeyPathResolver) throws -> [String] {
        try sortDescriptors.flatMap { descriptor -> [String] in
            let resolved = try resolver.resolve(descriptor.key, as: "sort key path")
            let direction = descriptor.ascending ? " ASC" : " DESC"
            switch resolved.attribute.type {
            case .decimal:
                // Decimals are exact text; `'100' < '12.5'` as text, so they sort as numbers, as predicates compare.
                return ["CAST(\(resolved.column) AS REAL)" + direction]
            case .string where SortCollations.name(for: descriptor.comparison) != nil:
                // The locale's order first, then the scalars', for texts the locale finds equal.
                let collation = SortCollations.name(for: descriptor.comparison) ?? ""
                return [
                    "\(resolved.column) COLLATE \(SQL.identifier(collation))" + direction, resolved.column + direction,
                ]
            case .string where descriptor.comparison == .caseInsensitive:
                // Folded first, then case-sensitively, so that "tea" and "Tea" still come in one fixed order.
                return [
                    "\(PredicateSQLFunctions.fold)(\(resolved.column), 1, 0)" + direction, resolved.column + direction,
                ]
            case .transformable:
                throw resolver.error(
                    .invalidRequest,
                    "sort key path '\(descriptor.key)' of \(entityName) is transformable; the store cannot order it",
                    descriptor.key)
            default:
                return [resolved.column + direction]
            }
        }
    }

    /// The dictionary query: fetched key paths, aggregates, DISTINCT and GROUP BY, checked for consistency.
    private func compileDictionary(_ predicateSQL: PredicateSQL, _ resolver: inout FetchKeyPathResolver) throws
        -> FetchQuery
    {
        let mapping = resolver.schema.mapping(for: entityName)
        let grouped = !propertiesToGroupBy.isEmpty
        let keyPaths =
            propertiesToFetch
            ?? (aggregates.isEmpty && !grouped ? (mapping?.attributes.map(\.name) ?? []) : propertiesToGroupBy)
        var seen: Set<String> = []
        for key in keyPaths + aggregates.map(\.name) where !seen.insert(key).inserted {
            throw invalid("two results of the dictionary fetch of \(entityName) are named '\(key)'", key)
        }
        guard !keyPaths.isEmpty || !aggregates.isEmpty else {
            throw invalid("the dictionary fetch of \(entityName) has no property or aggregate to fetch")
        }
        let groups = try propertiesToGroupBy.map { try resolver.resolveProperty($0, as: "group-by key path") }
        var columns: [FetchQuery.Column] = []
        var select: [String] = []
        /// `_ent` columns of to-one destinations with sub-entities, selected after every result column.
        var entityColumns: [(column: Int, sql: String)] = []
        for keyPath in keyPaths {
            let property = try resolver.resolveProperty(keyPath, as: "property to fetch")
            select.append(property.column)
            var column = FetchQuery.Column(key: keyPath, decoding: property.decoding)
            if let destination = property.destination {
                column.object = FetchQuery.ObjectColumn(destination: destination, entityIndex: nil)
                if let entityColumn = property.entityColumn { entityColumns.append((columns.count, entityColumn)) }
            }
            columns.append(column)
        }
        let needsGroups = grouped || !aggregates.isEmpty
        for keyPath in keyPaths where needsGroups && !propertiesToGroupBy.contains(keyPath) {
            throw invalid(
                "property to fetch '\(keyPath)' of \(entityName) is not in propertiesToGroupBy; with groups or "
                    + "aggregates, every fetched key path must be grouped", keyPath)
        }
        let fetchedColumns = select
        for aggregate in aggregates {
            let (expression, decoding) = try aggregateColumn(aggregate, &resolver)
            select.append(expression)
            columns.append(FetchQuery.Column(key: aggregate.name, decoding: decoding))
        }
        for (column, sql) in entityColumns {
            columns[column].object?.entityIndex = select.count
            select.append(sql)
        }
        let having = try havingCondition(groups: groups, &resolver)
        // Rows of a grouped or distinct fetch are no longer objects: their order is made total by their own
        // values, so sort key paths must be among them.
        let allowedSortKeys: [String]? =
            needsGroups ? propertiesToGroupBy : (returnsDistinctResults ? keyPaths : nil)
        if let allowedSortKeys {
            for descriptor in sortDescriptors where !allowedSortKeys.contains(descriptor.key) {
                throw invalid(
                    "sort key path '\(descriptor.key)' of \(entityName) is not among the "
                        + (needsGroups ? "group-by key paths" : "fetched key paths of this distinct fetch"),
                    descriptor.key)
            }
        }
        let tieBreakers = needsGroups ? groups.map(\.column) : (returnsDistinctResults ? fetchedColumns : [])
        let order = try orderTerms(&resolver) + (allowedSortKeys == nil ? [resolver.rootAliasPrimaryKey] : tieBreakers)
        let distinct = returnsDistinctResults && !needsGroups ? "DISTINCT " : ""
        return assemble(
            "SELECT " + distinct + select.joined(separator: ", "), predicateSQL, resolver,
            groupBy: groups.map(\.column), having: having, order: order, columns: columns)
    }

    /// The SQL and decoding of one aggregate column.
    private func aggregateColumn(
        _ aggregate: FetchAggregate, _ resolver: inout FetchKeyPathResolver
    ) throws -> (String, FetchQuery.Decoding) {
        if aggregate.keyPath == "SELF" {
            guard aggregate.function == .count else {
                throw invalid(
                    "aggregate '\(aggregate.name)' of \(entityName): only count can apply to SELF", aggregate.keyPath)
            }
            return ("COUNT(\(resolver.rootAliasPrimaryKey))", .integer)
        }
        let resolved = try resolver.resolve(aggregate.keyPath, as: "aggregate key path")
        let type = resolved.attribute.type
        let column = resolved.column
        switch (aggregate.function, type) {
        case (.count, _):
            return ("COUNT(\(column))", .integer)
        case (_, .decimal):
            return ("group_concat(\(column), ' ')", .decimalAggregate(aggregate.function))
        case (.sum, _) where type.isInteger:
            return ("SUM(\(column))", .attribute(.integer64))
        case (.sum, .double), (.sum, .float):
            return ("SUM(\(column))", .double)
        case (.average, _) where type.isNumeric:
            return ("AVG(\(column))", .double)
        case (.min, _) where !type.isTransformable:
            return ("MIN(\(column))", .attribute(type))
        case (.max, _) where !type.isTransformable:
            return ("MAX(\(column))", .attribute(type))
        default:
            throw invalid(
                "aggregate '\(aggregate.name)' of \(entityName): \(aggregate.function.rawValue) cannot apply to "
                    + "'\(aggregate.keyPath)', which is \(type.name)", aggregate.keyPath)
        }
    }

    private func invalid(_ message: String, _ keyPath: String? = nil) -> FetchRequestError {
        FetchRequestError(code: .invalidRequest, message: message, entityName: entityName, keyPath: keyPath)
    }
}

/// An extra SQL condition on the rows of a fetch's entity, for store-internal readers (see ``ReadSnapshot``).
struct RowRestriction {
    /// The condition, given the alias of the entity's table (`t0`); `?` parameters only, no values in the text.
    var condition: (_ alias: String) -> String
    /// The values of the condition's parameters, in order.
    var bindings: [SQLiteValue]
}

extension AttributeType {
    /// Whether values are encoded by a transformer, opaque to SQL.
    fileprivate var isTransformable: Bool {
        if case .transformable = self { return true }
        return false
    }
}

extension FetchKeyPathResolver {
    /// `"t0"."_pk"`.
    var rootAliasPrimaryKey: String { Self.column(rootAlias, "_pk") }
}
