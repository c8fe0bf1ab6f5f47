import FerrySQLite

extension PredicateEvaluator {
    /// `products.price.@sum` over `members` as the store's subquery computes it: values in the store's encoding
    /// (decimals as doubles), nil values skipped; a sum of integers stays an integer and `@sum` of nothing is 0;
    /// `@avg`, `@min` and `@max` of nothing are nil; strings and dates order as SQLite orders them.
    ///
    /// - Returns: the aggregate and its kind, as `(value, kind)`.
    func aggregate(
        _ function: CollectionAggregate, over members: [ManagedObject], _ keyPath: [String], layout: EntityLayout,
        value: (ManagedObject?) throws -> (SQLiteValue?, PredicateOperand.ValueKind?)
    ) throws -> (SQLiteValue?, PredicateOperand.ValueKind) {
        let (_, kind) = try value(nil)
        guard case .attribute(let type)? = kind else {
            throw FetchPredicateError(
                code: .unsupported,
                message: "'\(function.rawValue)' needs an attribute of the related objects before it",
                format: predicate.description)
        }
        var values: [SQLiteValue] = []
        for member in members {
            if let encoded = try value(member).0 { values.append(Self.numeric(encoded, kind)) }
        }
        let resultKind = function.valueKind(of: type)
        switch function {
        case .count: return (.integer(Int64(values.count)), resultKind)
        case .sum:
            var integerSum: Int64 = 0
            var doubleSum = 0.0
            var isInteger = true
            for value in values {
                switch value {
                case .integer(let integer):
                    integerSum &+= integer
                    doubleSum += Double(integer)
                case .real(let real):
                    isInteger = false
                    doubleSum += real
                default: continue
                }
            }
            return (isInteger ? .integer(integerSum) : .real(doubleSum), resultKind)
        case .average:
            guard !values.isEmpty else { return (nil, resultKind) }
            let total = values.reduce(0.0) { sum, value in
                switch value {
                case .integer(let integer): sum + Double(integer)
                case .real(let real): sum + real
                default: sum
                }
            }
            return (.real(total / Double(values.count)), resultKind)
        case .min: return (values.min { Self.order($0, $1) < 0 }, resultKind)
        case .max: return (values.max { Self.order($0, $1) < 0 }, resultKind)
        }
    }
}
