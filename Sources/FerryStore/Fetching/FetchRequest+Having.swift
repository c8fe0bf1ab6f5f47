import FerrySQLite

extension FetchRequest {
    /// The `HAVING` condition of ``havingPredicate``, whose key paths name aggregates (by their names) or group-by
    /// key paths; nil without one.
    ///
    /// Aggregates compare as numbers, decimals included (as predicates compare decimals), whatever the dictionaries
    /// return for them.
    ///
    /// - Throws: ``FetchRequestError`` `.invalidRequest` without ``propertiesToGroupBy`` or for a key path that is
    ///   neither; ``FetchPredicateError`` when a comparison does not fit.
    func havingCondition(groups: [FetchKeyPathResolver.Property], _ resolver: inout FetchKeyPathResolver) throws
        -> PredicateSQLFragment?
    {
        guard let havingPredicate else { return nil }
        guard !propertiesToGroupBy.isEmpty else {
            throw FetchRequestError(
                code: .invalidRequest,
                message: "the dictionary fetch of \(entityName) has a havingPredicate but no propertiesToGroupBy",
                entityName: entityName)
        }
        var operands: [String: PredicateOperand] = [:]
        for (keyPath, group) in zip(propertiesToGroupBy, groups) {
            operands[keyPath] = PredicateOperand(.column(group.column, group.kind), keyPath: keyPath)
        }
        for aggregate in aggregates {
            operands[aggregate.name] = try havingOperand(aggregate, &resolver)
        }
        let comparer = PredicateComparer(entity: entityName, predicate: havingPredicate, model: resolver.schema.model)
        return try having(havingPredicate, operands, comparer)
    }

    private func having(
        _ predicate: FetchPredicate, _ operands: [String: PredicateOperand], _ comparer: PredicateComparer
    ) throws -> PredicateSQLFragment {
        switch predicate {
        case .truePredicate: return PredicateSQLFragment("1")
        case .falsePredicate: return PredicateSQLFragment("0")
        case .and(let lhs, let rhs):
            return "(" + (try having(lhs, operands, comparer)) + " AND " + (try having(rhs, operands, comparer)) + ")"
        case .or(let lhs, let rhs):
            return "(" + (try having(lhs, operands, comparer)) + " OR " + (try having(rhs, operands, comparer)) + ")"
        case .not(let inner):
            // As in WHERE: a comparison with a missing value is false, so its negation is true.
            return "(" + (try having(inner, operands, comparer)) + ") IS NOT 1"
        case .comparison(let comparison):
            guard comparison.modifier == .direct else {
                throw invalid("the havingPredicate of \(entityName) cannot use \(comparison.modifier.rawValue)")
            }
            let lhs = try operand(comparison.lhs, operands)
            let rhs = try operand(comparison.rhs, operands)
            return try comparer.compare(lhs, comparison.operator, rhs, options: comparison.options)
        }
    }

    private func operand(_ expression: FetchPredicate.Expression, _ operands: [String: PredicateOperand]) throws
        -> PredicateOperand
    {
        switch expression {
        case .keyPath(let keyPath):
            guard let operand = operands[keyPath] else {
                throw invalid(
                    "havingPredicate key path '\(keyPath)' of \(entityName) is neither an aggregate's name nor a "
                        + "group-by key path")
            }
            return operand
        case .constant(let value): return PredicateOperand(.constant(value), keyPath: "")
        case .aggregate(let elements):
            let values = try elements.map { element -> AttributeValue? in
                guard case .constant(let value) = element else {
                    throw invalid("an array in the havingPredicate of \(entityName) may only hold constants")
                }
                return value
            }
            return PredicateOperand(.list(values), keyPath: "")
        case .variable(let name):
            throw FetchPredicateError(
                code: .unboundVariable, message: "$\(name) has no value: substitute it before fetching",
                format: havingPredicate?.description ?? "")
        case .evaluatedObject, .subquery:
            throw invalid("the havingPredicate of \(entityName) compares groups: \(expression) is not one's value")
        }
    }

    /// An aggregate as SQL a HAVING clause compares: over numbers (decimals read as doubles).
    private func havingOperand(_ aggregate: FetchAggregate, _ resolver: inout FetchKeyPathResolver) throws
        -> PredicateOperand
    {
        if aggregate.keyPath == "SELF" {
            return PredicateOperand(.column("COUNT(\(resolver.rootAliasPrimaryKey))", .count), keyPath: aggregate.name)
        }
        let resolved = try resolver.resolve(aggregate.keyPath, as: "aggregate key path")
        let type = resolved.attribute.type
        let value = PredicateOperand.ValueKind.attribute(type).comparable(resolved.column, options: [])
        let sql: String
        let kind: PredicateOperand.ValueKind
        switch aggregate.function {
        case .count: (sql, kind) = ("COUNT(\(resolved.column))", .count)
        case .sum: (sql, kind) = ("SUM(\(value))", .number)
        case .average: (sql, kind) = ("AVG(\(value))", .number)
        case .min: (sql, kind) = ("MIN(\(value))", type == .decimal ? .number : .attribute(type))
        case .max: (sql, kind) = ("MAX(\(value))", type == .decimal ? .number : .attribute(type))
        }
        return PredicateOperand(.column(sql, kind), keyPath: aggregate.name)
    }

    private func invalid(_ message: String) -> FetchRequestError {
        FetchRequestError(code: .invalidRequest, message: message, entityName: entityName)
    }
}
