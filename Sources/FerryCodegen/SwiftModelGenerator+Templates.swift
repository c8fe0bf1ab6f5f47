import FerryStore

/// Fetch request templates as typed functions: `expensiveProducts: price > $MIN_PRICE` becomes
/// `Product.expensiveProductsFetchRequest(minPrice: Decimal)`.
extension SwiftModelGenerator {
    /// A template's `$VARIABLE`, its parameter name and Swift type.
    struct TemplateVariable: Hashable {
        var variable: String
        var parameter: String
        /// The Swift type, or `nil` when it cannot be told (the parameter is then a `PredicateArgument`).
        var type: String?
        var isArray: Bool
    }

    func templateFunction(_ name: String, _ template: FetchRequestTemplate) -> [String] {
        let entity = template.entity
        let functionName = SwiftIdentifiers.escaped("\(name)FetchRequest")
        let resultType = "\(typeName("TypedFetchRequest"))<\(entity)>"
        // The model was validated when loaded, so its templates parse; one that does not is left out of the code.
        guard let predicate = try? FetchPredicate(format: template.predicate) else { return [] }
        let variables = templateVariables(predicate, entity: entity)
        let parameters = variables.map { variable in
            let type = variable.type.map { variable.isArray ? "[\($0)]" : $0 } ?? typeName("PredicateArgument")
            return "\(variable.parameter): \(type)"
        }
        var lines = [
            "    /// The model's fetch request template \(name): `\(template.predicate)`.",
            "    \(access)static func \(functionName)(\(parameters.joined(separator: ", "))) throws -> \(resultType) {",
        ]
        let parse = "try \(typeName("FetchPredicate"))(format: \(literal(template.predicate)))"
        lines.append(variables.isEmpty ? "        let predicate = \(parse)" : "        var predicate = \(parse)")
        if !variables.isEmpty {
            lines.append("        predicate = predicate.substituting([")
            for variable in variables {
                lines.append("            \(literal(variable.variable)): \(argument(variable)),")
            }
            lines.append("        ])")
        }
        lines.append("        return \(resultType)(entityName: \(literal(entity)), predicate: predicate)")
        lines.append("    }")
        return lines
    }

    private func argument(_ variable: TemplateVariable) -> String {
        let argumentType = typeName("PredicateArgument")
        guard variable.type != nil else { return variable.parameter }
        if variable.isArray {
            return ".array(\(variable.parameter).map { \(argumentType)($0.attributeValue) })"
        }
        return "\(argumentType)(\(variable.parameter).attributeValue)"
    }

    /// The variables of `predicate` in order of first use, each typed by the attribute it is compared with when
    /// every use tells the same type.
    func templateVariables(_ predicate: FetchPredicate, entity: String) -> [TemplateVariable] {
        var order: [String] = []
        var types: [String: Set<TemplateVariable>] = [:]
        forEachComparison(predicate) { comparison in
            for (side, other) in [(comparison.lhs, comparison.rhs), (comparison.rhs, comparison.lhs)] {
                guard case .variable(let variable) = side else { continue }
                if types[variable] == nil { order.append(variable) }
                var typed = TemplateVariable(variable: variable, parameter: "", type: nil, isArray: false)
                if case .keyPath(let keyPath) = other, comparison.modifier == .direct,
                    comparison.operator != .between, let attribute = attribute(at: keyPath, from: entity)
                {
                    typed.type = swiftType(of: attribute.type)
                    typed.isArray = comparison.operator == .in && side == comparison.rhs
                }
                types[variable, default: []].insert(typed)
            }
        }
        var used: Set<String> = []
        return order.map { variable in
            let uses = types[variable] ?? []
            // A variable used with different types (or none) takes any argument.
            var result = TemplateVariable(variable: variable, parameter: "", type: nil, isArray: false)
            if uses.count == 1, let only = uses.first { result = only }
            var parameter = SwiftIdentifiers.parameterName(variable)
            while used.contains(parameter) { parameter += "_" }
            used.insert(parameter)
            result.parameter = parameter
            return result
        }
    }

    /// The attribute `keyPath` ends at, following to-one relationships from `entity`.
    private func attribute(at keyPath: String, from entity: String) -> AttributeDescription? {
        var current = entity
        let components = keyPath.split(separator: ".").map(String.init)
        for component in components.dropLast() {
            guard let relationship = model.allRelationships(of: current).first(where: { $0.name == component }),
                !relationship.isToMany
            else { return nil }
            current = relationship.destinationEntity
        }
        guard let last = components.last else { return nil }
        return model.allAttributes(of: current).first { $0.name == last }
    }

    private func forEachComparison(_ predicate: FetchPredicate, _ body: (FetchPredicate.Comparison) -> Void) {
        switch predicate {
        case .truePredicate, .falsePredicate: break
        case .comparison(let comparison): body(comparison)
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            forEachComparison(lhs, body)
            forEachComparison(rhs, body)
        case .not(let inner): forEachComparison(inner, body)
        }
    }
}
