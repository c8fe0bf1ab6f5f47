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
        case .variable(let name): variables[name]?.expression ?? self
        case .aggregate(let elements): .aggregate(elements.map { $0.substituting(variables) })
        case .keyPath, .evaluatedObject, .constant: self
        }
    }
}
