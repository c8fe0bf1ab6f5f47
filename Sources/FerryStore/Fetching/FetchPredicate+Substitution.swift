extension FetchPredicate {
    /// The predicate with its `$NAME` variables replaced, as Core Data's `withSubstitutionVariables(_:)`; this is
    /// how a model's fetch request templates are filled in.
    ///
    /// ```swift
    /// let template = try FetchPredicate(format: "price >= $MIN_PRICE AND sku IN $SKUS")
    /// let filled = template.substituting(["MIN_PRICE": .double(10), "SKUS": ["A-1", "A-2"]])
    /// ```
    ///
    /// An array becomes an array literal and `nil` (``PredicateArgument/null``) becomes `nil`. Variables missing
    /// from `variables` stay in place (see ``variableNames``); compiling a predicate that still has one throws
    /// ``FetchPredicateError/Code/unboundVariable``.
    public func substituting(_ variables: [String: PredicateArgument]) -> FetchPredicate {
        mapExpressions { $0.substituting(variables) }
    }
}

extension FetchPredicate.Expression {
    /// The expression with its variables replaced.
    func substituting(_ variables: [String: PredicateArgument]) -> FetchPredicate.Expression {
        switch self {
        case .variable(let name): return variables[name]?.expression ?? self
        case .aggregate(let elements): return .aggregate(elements.map { $0.substituting(variables) })
        case .subquery(var subquery):
            // The subquery's own variable was replaced by key paths when parsed; a value of that name is not for it.
            subquery.predicate = subquery.predicate.substituting(variables.filter { $0.key != subquery.variable })
            return .subquery(subquery)
        case .keyPath, .evaluatedObject, .constant: return self
        }
    }
}
