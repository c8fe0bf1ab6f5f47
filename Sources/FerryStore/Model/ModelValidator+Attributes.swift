import Foundation

/// Property names, and each attribute's rules and default.
extension ModelValidator {
    /// Each own property's name: well-formed, not reserved, and unique within the entity and its ancestors
    /// (ignoring case, as SQLite does), and clear of the columns Ferry adds.
    mutating func checkPropertyNames(of entity: EntityDescription) {
        let inCycle = entitiesInCycles.contains(entity.name)
        var seen: [String: (name: String, owner: String, kind: String)] = [:]
        if !inCycle {
            for ancestor in model.ancestry(of: entity.name).dropLast() {
                for name in ancestor.attributes.map(\.name) where seen[name.lowercased()] == nil {
                    seen[name.lowercased()] = (name, ancestor.name, "attribute")
                }
                for name in ancestor.relationships.map(\.name) where seen[name.lowercased()] == nil {
                    seen[name.lowercased()] = (name, ancestor.name, "relationship")
                }
            }
        }
        let own: [(name: String, element: ModelElement, kind: String)] =
            entity.attributes.map { ($0.name, .attribute(entity: entity.name, name: $0.name), "attribute") }
            + entity.relationships.map { ($0.name, .relationship(entity: entity.name, name: $0.name), "relationship") }
        for (name, element, kind) in own {
            if let (code, message) = Self.nameProblem(name, isEntity: false) { error(code, message, element) }
            guard let earlier = seen[name.lowercased()] else {
                seen[name.lowercased()] = (name, entity.name, kind)
                continue
            }
            let message: String
            if earlier.name != name {
                let owner = earlier.owner == entity.name ? "" : " of \(earlier.owner)"
                message =
                    "'\(name)' differs from \(earlier.kind) '\(earlier.name)'\(owner) only in case; "
                    + "SQLite ignores case in names"
            } else if earlier.owner != entity.name {
                message = "'\(name)' is already declared by \(earlier.owner), which \(entity.name) inherits from"
            } else if earlier.kind == kind {
                message = "\(kind) '\(name)' is declared twice"
            } else {
                message = "'\(name)' is both an attribute and a relationship"
            }
            error(.duplicateName, message, element)
        }
        guard !inCycle else { return }
        for relationship in model.allRelationships(of: entity.name) where !relationship.isToMany {
            guard !model.subentities(of: relationship.destinationEntity).isEmpty else { continue }
            let column = relationship.name + "_ent"
            for (name, element, _) in own where name.lowercased() == column.lowercased() {
                error(
                    .duplicateName,
                    "'\(name)' clashes with the column \(column), which holds the entity of relationship "
                        + "'\(relationship.name)' (its destination has sub-entities)", element)
            }
        }
    }

    /// An attribute's rules: each applies to its type, ranges are not empty, the regex compiles, the default fits.
    mutating func checkAttribute(_ attribute: AttributeDescription, of entity: EntityDescription) {
        let element = ModelElement.attribute(entity: entity.name, name: attribute.name)
        guard !sourceMap.isUnreliable(element) else { return }
        let type = attribute.type
        if type.isNumeric || type == .date {
            if let min = attribute.minValue, let max = attribute.maxValue, min > max {
                error(
                    .invalidRule, "min \(Self.shown(min, type)) is greater than max \(Self.shown(max, type))",
                    element, key: "min")
            }
        } else {
            for (key, value) in [("min", attribute.minValue), ("max", attribute.maxValue)] where value != nil {
                error(.invalidRule, "'\(key)' applies to numbers and dates, not \(type.name)", element, key: key)
            }
        }
        if type == .string {
            for (key, value) in [("minLength", attribute.minLength), ("maxLength", attribute.maxLength)] {
                if let value, value < 0 {
                    error(.invalidRule, "\(key) must be 0 or more; found \(value)", element, key: key)
                }
            }
            if let min = attribute.minLength, let max = attribute.maxLength, min > max {
                error(.invalidRule, "minLength \(min) is greater than maxLength \(max)", element, key: "minLength")
            }
            if let pattern = attribute.regularExpression, (try? WholeStringRegex(pattern)) == nil {
                error(.invalidRegularExpression, "regex '\(pattern)' does not compile", element, key: "regex")
            }
        } else {
            let rules = [
                ("minLength", attribute.minLength != nil), ("maxLength", attribute.maxLength != nil),
                ("regex", attribute.regularExpression != nil),
            ]
            for (key, isSet) in rules where isSet {
                error(.invalidRule, "'\(key)' applies to strings, not \(type.name)", element, key: key)
            }
        }
        if type == .decimal {
            if let precision = attribute.decimalPrecision, !(1...38).contains(precision) {
                error(.invalidRule, "precision must be 1 to 38; found \(precision)", element, key: "precision")
            }
            if let scale = attribute.decimalScale {
                if attribute.decimalPrecision == nil {
                    error(.invalidRule, "'scale' needs a 'precision' beside it", element, key: "scale")
                } else if scale < 0 || scale > (attribute.decimalPrecision ?? 0) {
                    error(.invalidRule, "scale must be 0 to the precision; found \(scale)", element, key: "scale")
                }
            }
        } else {
            for (key, isSet) in [("precision", attribute.decimalPrecision != nil), ("scale", attribute.decimalScale != nil)]
            where isSet {
                error(.invalidRule, "'\(key)' applies to decimals, not \(type.name)", element, key: key)
            }
        }
        if attribute.allowsExternalStorage && type != .binary {
            error(
                .invalidRule, "'allowsExternalStorage' applies to binary attributes, not \(type.name)", element,
                key: "allowsExternalStorage")
        }
        if case .transformable(let transformer) = type, transformer.isEmpty {
            error(.invalidRule, "type transformable needs a transformer name", element, key: "transformer")
        }
        if attribute.isTransient && attribute.isIndexed {
            error(.invalidRule, "a transient attribute has no column to index", element, key: "indexed")
        }
        if let value = attribute.defaultValue { checkDefault(value, of: attribute, element) }
        if attribute.derivation != nil { checkDerivation(of: attribute, in: entity) }
    }

    /// The default's kind matches the type, and the default passes the attribute's own rules.
    private mutating func checkDefault(
        _ value: AttributeValue, of attribute: AttributeDescription, _ element: ModelElement
    ) {
        let type = attribute.type
        guard Self.value(value, fits: type) else {
            error(
                .invalidDefault, "the default is \(value.kindName), but the type is \(type.name)", element,
                key: "default")
            return
        }
        let number: (value: Double, text: String)?
        switch value {
        case .integer(let integer):
            if let range = type.integerRange, !range.contains(integer) {
                error(
                    .invalidDefault,
                    "default \(integer) is out of range for \(type.name) (\(range.lowerBound) to \(range.upperBound))",
                    element, key: "default")
            }
            number = (Double(integer), String(integer))
        case .double(let double): number = (double, Self.shown(double, type))
        case .decimal(let decimal): number = (NSDecimalNumber(decimal: decimal).doubleValue, "\(decimal)")
        case .date(let date): number = (date.timeIntervalSince1970, ModelFileParser.isoText(of: date))
        case .string(let string):
            number = nil
            checkDefault(string, of: attribute, element)
        default: number = nil
        }
        guard let number else { return }
        if let min = attribute.minValue, number.value < min {
            error(
                .invalidDefault, "default \(number.text) is less than min \(Self.shown(min, type))", element,
                key: "default")
        }
        if let max = attribute.maxValue, number.value > max {
            error(
                .invalidDefault, "default \(number.text) is greater than max \(Self.shown(max, type))", element,
                key: "default")
        }
    }

    /// A string default against the length rules and the regex.
    private mutating func checkDefault(_ string: String, of attribute: AttributeDescription, _ element: ModelElement) {
        let length = string.utf16.count
        if let min = attribute.minLength, length < min {
            error(.invalidDefault, "default '\(string)' is shorter than minLength \(min)", element, key: "default")
        }
        if let max = attribute.maxLength, length > max {
            error(.invalidDefault, "default '\(string)' is longer than maxLength \(max)", element, key: "default")
        }
        if let pattern = attribute.regularExpression, let regex = try? WholeStringRegex(pattern),
            !regex.matches(string)
        {
            error(.invalidDefault, "default '\(string)' does not match regex '\(pattern)'", element, key: "default")
        }
    }

    /// Whether `value` is the kind of value `type` holds.
    static func value(_ value: AttributeValue, fits type: AttributeType) -> Bool {
        switch (value, type) {
        case (.integer, .integer16), (.integer, .integer32), (.integer, .integer64): true
        case (.double, .double), (.double, .float), (.decimal, .decimal), (.string, .string): true
        case (.boolean, .boolean), (.date, .date), (.binary, .binary), (.uuid, .uuid), (.uri, .uri): true
        case (.transformable, .transformable): true
        default: false
        }
    }

    /// A bound as written: a date as ISO-8601, a whole number without `.0`.
    static func shown(_ value: Double, _ type: AttributeType) -> String {
        if type == .date { return ModelFileParser.isoText(of: Date(timeIntervalSince1970: value)) }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
