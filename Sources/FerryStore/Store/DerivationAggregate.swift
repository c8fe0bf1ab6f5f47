import FerrySQLite

/// A `@count`, or an aggregate of the members' attribute, as SQL: the full value, and the increments when they are
/// exact.
struct DerivationAggregate {
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
