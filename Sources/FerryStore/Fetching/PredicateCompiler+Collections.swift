import FerrySQLite

/// An aggregate of a to-many key path in a predicate: `products.price.@sum`.
enum CollectionAggregate: String {
    case count = "@count"
    case sum = "@sum"
    case average = "@avg"
    case min = "@min"
    case max = "@max"

    /// The aggregate a key path component names (`@sum`…), or nil.
    init?(operator name: String) {
        self.init(rawValue: name.lowercased())
    }

    /// Whether the aggregate applies to an attribute of `type`: counts to any, sums and averages to numbers,
    /// minimums and maximums to anything ordered (not binary or transformable data).
    func applies(to type: AttributeType) -> Bool {
        switch self {
        case .count: true
        case .sum, .average: type.isInteger || type == .double || type == .float || type == .decimal
        case .min, .max: type != .binary && type.isPredicateComparable
        }
    }

    /// What the aggregate of an attribute of `type` holds: a number (decimals are aggregated as doubles, as
    /// predicates compare them), or the attribute's own kind for the minimum and maximum of other types.
    func valueKind(of type: AttributeType) -> PredicateOperand.ValueKind {
        switch self {
        case .count, .sum, .average: .number
        case .min, .max: type == .decimal ? .number : .attribute(type)
        }
    }
}

extension PredicateCompiler {
    /// `(SELECT SUM(…) FROM <related objects> WHERE <correlation>)` for `products.price.@sum` (and `@count` of the
    /// values that are not nil, `@avg`, `@min`, `@max`). The key path after the relationship may go through to-one
    /// relationships of the related objects; it must end at an attribute.
    ///
    /// `@sum` of no values is 0, as Core Data's in-memory `@sum`; the others are nil, so a comparison with them is
    /// false.
    mutating func aggregate(_ function: CollectionAggregate, of path: PredicateOperand.ToManyPath) throws
        -> PredicateOperand
    {
        let source = try toManySource(path)
        let scope = pushScope(entity: source.destinationEntity, alias: source.destinationAlias)
        let value = try resolve(Array(path.remainder.dropLast()), in: scope, shownAs: path.keyPath)
        let joins = popScope()
        guard case .column(let sql, .attribute(let type)) = value.kind else {
            throw comparer.error(
                .unsupported,
                "'\(function.rawValue)' in key path '\(path.keyPath)' of \(comparer.entity) needs an attribute of the "
                    + "related objects before it")
        }
        guard function.applies(to: type) else {
            throw comparer.error(
                .typeMismatch,
                "'\(function.rawValue)' cannot apply to \(type.name) values (key path '\(path.keyPath)' of "
                    + "\(comparer.entity))")
        }
        let operand = PredicateOperand.ValueKind.attribute(type).comparable(sql, options: [])
        let expression: String
        switch function {
        case .count: expression = "COUNT(\(sql))"
        case .sum: expression = "COALESCE(SUM(\(operand)), 0)"
        case .average: expression = "AVG(\(operand))"
        case .min: expression = "MIN(\(operand))"
        case .max: expression = "MAX(\(operand))"
        }
        let conditions = [source.correlation] + (source.entityTest.map { [$0] } ?? [])
        let text =
            "(SELECT \(expression) FROM " + ([source.from] + joins).joined(separator: " ") + " WHERE "
            + conditions.joined(separator: " AND ") + ")"
        return PredicateOperand(.column(text, function.valueKind(of: type)), keyPath: path.keyPath)
    }

    /// `(SELECT COUNT(*) FROM <related objects> WHERE <correlation> AND <predicate on each>)` for
    /// `SUBQUERY(collection, $x, predicate).@count`; the predicate's key paths start from each related object.
    mutating func count(_ subquery: FetchPredicate.Subquery, in scope: Int) throws -> PredicateOperand {
        let shown = FetchPredicate.Expression.subquery(subquery).description
        let collection = try resolve(
            subquery.collection.split(separator: ".", omittingEmptySubsequences: false).map(String.init), in: scope,
            shownAs: subquery.collection)
        guard case .toMany(let path) = collection.kind, path.remainder.isEmpty else {
            throw comparer.error(
                .unsupported,
                "SUBQUERY needs a to-many relationship as its collection; '\(subquery.collection)' of "
                    + "\(scopes[scope].entity) is not one")
        }
        let source = try toManySource(path)
        let inner = pushScope(entity: source.destinationEntity, alias: source.destinationAlias)
        let outer = enterPredicateScope(inner)
        let condition = try compile(subquery.predicate)
        _ = enterPredicateScope(outer)
        let joins = popScope()
        let conditions = [source.correlation] + (source.entityTest.map { [$0] } ?? [])
        let head: String =
            "(SELECT COUNT(*) FROM " + ([source.from] + joins).joined(separator: " ") + " WHERE "
            + conditions.joined(separator: " AND ") + " AND "
        let fragment = head + condition + ")"
        return PredicateOperand(.column(fragment.text, .count), keyPath: shown, bindings: fragment.bindings)
    }
}

extension ManagedObjectModel {
    /// Whether `keyPath`, walked from `entity`, goes through a to-many relationship: then `…tags.@count` after it
    /// counts per related object (`ANY products.tags.@count > 2`) rather than aggregating an attribute.
    func reachesToMany(_ keyPath: some Sequence<String>, from entity: String) -> Bool {
        var current = entity
        for name in keyPath {
            guard let relationship = allRelationships(of: current).first(where: { $0.name == name }) else {
                return false
            }
            if relationship.isToMany { return true }
            current = relationship.destinationEntity
        }
        return false
    }
}
