import Foundation

/// Derived attributes: only the forms the store can maintain with SQL triggers, on attributes
/// that have a column, with a type that fits what the derivation produces.
extension ModelValidator {
    /// The forms of derivation Ferry maintains.
    enum DerivationForm: Equatable {
        /// `now()`: the time of the row's last save.
        case now
        /// `@count items` or `items.@count`.
        case count(relationship: String)
        /// `@sum items.quantity` or `items.quantity.@sum`, and the same with `@avg`, `@min` or `@max`.
        case aggregate(AggregateFunction, relationship: String, attribute: String)
        /// `canonical:(name)`, `lowercase:(name)`, `uppercase:(name)` (parentheses optional).
        case function(name: String, keyPath: [String])
        /// `name` or `category.name`: a copy, through to-one relationships.
        case keyPath([String])
    }

    /// An aggregate of a to-many's attribute; the raw value is the keyword without its `@`.
    enum AggregateFunction: String, CaseIterable {
        /// The sum; 0 for an empty to-many.
        case sum
        /// The mean of the values that are not nil; nil for an empty to-many.
        case avg
        /// The smallest value; nil for an empty to-many.
        case min
        /// The largest value; nil for an empty to-many.
        case max
    }

    static let derivationFunctions = ["canonical", "lowercase", "uppercase"]

    mutating func checkDerivation(of attribute: AttributeDescription, in entity: EntityDescription) {
        guard let expression = attribute.derivation else { return }
        let element = ModelElement.attribute(entity: entity.name, name: attribute.name)
        func fail(_ message: String) { error(.invalidDerivation, message, element, key: "derivation") }
        if attribute.isTransient {
            fail("a transient attribute cannot be derived: derived values live in a column the store maintains")
        }
        if attribute.allowsExternalStorage { fail("a derived attribute cannot use external storage") }
        if !attribute.isOptional && attribute.defaultValue == nil {
            warn(
                .mandatoryDerivedAttribute,
                "non-optional and derived, without a default: validation runs before the store computes the value, "
                    + "so inserts would fail; make it optional or give it a default", element, key: "derivation")
        }
        guard let form = Self.derivationForm(expression) else {
            fail(
                "unsupported derivation '\(expression)'; expected a key path through to-one relationships, now(), "
                    + "canonical:, lowercase: or uppercase: of a key path, '@count REL', or '@sum REL.ATTR', "
                    + "'@avg REL.ATTR', '@min REL.ATTR' or '@max REL.ATTR'")
            return
        }
        let type = attribute.type
        let prefix = "derivation '\(expression)'"
        switch form {
        case .now:
            if type != .date { fail("\(prefix) needs type date, not \(type.name)") }
        case .count(let name):
            guard toManyRelationship(name, of: entity.name, prefix, element) != nil else { return }
            if !type.isInteger { fail("\(prefix) needs an integer type, not \(type.name)") }
        case .aggregate(let function, let name, let attributeName):
            guard let relationship = toManyRelationship(name, of: entity.name, prefix, element),
                let source = resolve([attributeName], from: relationship.destinationEntity, prefix, element)
            else { return }
            if let problem = Self.aggregateProblem(function, of: source, into: type) { fail("\(prefix) \(problem)") }
        case .function(let name, let path):
            guard let source = resolve(path, from: entity.name, prefix, element, deriving: attribute) else { return }
            if source.type != .string {
                fail(
                    "\(prefix): \(name): applies to strings, and '\(path.joined(separator: "."))' is "
                        + source.type.name)
            } else if type != .string {
                fail("\(prefix) needs type string, not \(type.name)")
            }
        case .keyPath(let path):
            guard let source = resolve(path, from: entity.name, prefix, element, deriving: attribute) else { return }
            if source.type != type {
                fail("\(prefix) copies a \(source.type.name), but the type is \(type.name)")
            }
        }
    }

    /// Why `function` of the members' `source` cannot be kept in an attribute of `type`, or `nil` when it can.
    ///
    /// `@sum` and `@avg` take numbers; `@avg` gives a double, float or decimal. `@min` and `@max` take numbers,
    /// dates and strings, and give the source's own type (decimals compare as numbers, strings by code point).
    private static func aggregateProblem(
        _ function: AggregateFunction, of source: AttributeDescription, into type: AttributeType
    ) -> String? {
        let name = "'\(source.name)'"
        switch function {
        case .sum:
            if !source.type.isNumeric { return "sums \(name), which is \(source.type.name), not a number" }
            if !type.isNumeric { return "needs a numeric type, not \(type.name)" }
        case .avg:
            if !source.type.isNumeric { return "averages \(name), which is \(source.type.name), not a number" }
            if ![.double, .float, .decimal].contains(type) {
                return "needs type double, float or decimal, not \(type.name)"
            }
        case .min, .max:
            let taken = "takes the \(function == .min ? "minimum" : "maximum") of \(name), which is \(source.type.name)"
            if !source.type.isNumeric && source.type != .date && source.type != .string {
                return "\(taken); @min and @max take numbers, dates and strings"
            }
            if source.type != type { return "\(taken), but the type is \(type.name)" }
        }
        return nil
    }

    /// The to-many relationship `name` of `entity`, or `nil` (reported).
    private mutating func toManyRelationship(
        _ name: String, of entity: String, _ prefix: String, _ element: ModelElement
    ) -> RelationshipDescription? {
        let relationships = model.allRelationships(of: entity)
        guard let relationship = relationships.first(where: { $0.name == name }), relationship.isToMany else {
            var message = "\(prefix): '\(name)' is not a to-many relationship of \(entity)"
            let toMany = relationships.filter(\.isToMany).map(\.name)
            if let suggestion = NameSuggestion.suggestion(for: name, among: toMany) {
                message += "; did you mean '\(suggestion)'?"
            }
            error(.invalidDerivation, message, element, key: "derivation")
            return nil
        }
        return model.entity(named: relationship.destinationEntity) == nil ? nil : relationship
    }

    /// The attribute a key path ends at, walking to-one relationships from `entity`; `nil` (reported) when the
    /// path does not lead to an attribute, or leads back to the attribute being derived.
    private mutating func resolve(
        _ path: [String], from entity: String, _ prefix: String, _ element: ModelElement,
        deriving attribute: AttributeDescription? = nil
    ) -> AttributeDescription? {
        func fail(_ message: String) { error(.invalidDerivation, "\(prefix): \(message)", element, key: "derivation") }
        if let attribute, path == [attribute.name] {
            fail("an attribute cannot be derived from itself")
            return nil
        }
        var current = entity
        for (index, name) in path.enumerated() {
            let attributes = model.allAttributes(of: current)
            let relationships = model.allRelationships(of: current)
            if index == path.count - 1 {
                if let found = attributes.first(where: { $0.name == name }) { return found }
                if relationships.contains(where: { $0.name == name }) {
                    fail("'\(name)' is a relationship of \(current); a derivation copies an attribute")
                } else {
                    var message = "'\(name)' is not an attribute of \(current)"
                    if let suggestion = NameSuggestion.suggestion(for: name, among: attributes.map(\.name)) {
                        message += "; did you mean '\(suggestion)'?"
                    }
                    fail(message)
                }
                return nil
            }
            guard let relationship = relationships.first(where: { $0.name == name }) else {
                fail("'\(name)' is not a relationship of \(current)")
                return nil
            }
            if relationship.isToMany {
                fail("'\(name)' is a to-many relationship; use @count, @sum, @avg, @min or @max over it")
                return nil
            }
            // An unknown destination is reported with the relationship itself.
            guard model.entity(named: relationship.destinationEntity) != nil else { return nil }
            current = relationship.destinationEntity
        }
        return nil
    }

    /// The form of `expression`, or `nil` when it is none Ferry maintains.
    static func derivationForm(_ expression: String) -> DerivationForm? {
        let text = expression.trimmingCharacters(in: .whitespaces)
        if text == "now()" { return .now }
        for (marker, isPrefix) in [("@count ", true), (".@count", false)] {
            guard isPrefix ? text.hasPrefix(marker) : text.hasSuffix(marker) else { continue }
            let rest = isPrefix ? text.dropFirst(marker.count) : text.dropLast(marker.count)
            guard let path = keyPath(rest), path.count == 1 else { return nil }
            return .count(relationship: path[0])
        }
        for function in AggregateFunction.allCases {
            let keyword = "@" + function.rawValue
            for (marker, isPrefix) in [(keyword + " ", true), ("." + keyword, false)] {
                guard isPrefix ? text.hasPrefix(marker) : text.hasSuffix(marker) else { continue }
                let rest = isPrefix ? text.dropFirst(marker.count) : text.dropLast(marker.count)
                guard let path = keyPath(rest), path.count == 2 else { return nil }
                return .aggregate(function, relationship: path[0], attribute: path[1])
            }
        }
        for name in derivationFunctions where text.hasPrefix(name + ":") {
            var argument = text.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)[...]
            if argument.hasPrefix("(") && argument.hasSuffix(")") {
                argument = argument.dropFirst().dropLast()
            }
            return keyPath(argument).map { .function(name: name, keyPath: $0) }
        }
        return keyPath(text[...]).map { .keyPath($0) }
    }

    /// `a.b.c` as its names, when each is an identifier.
    private static func keyPath(_ text: Substring) -> [String]? {
        let names = text.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
        let isIdentifier: (Substring) -> Bool = { name in
            guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else {
                return false
            }
            return name.unicodeScalars.allSatisfy {
                $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)
            }
        }
        guard names.allSatisfy(isIdentifier) else { return nil }
        return names.map(String.init)
    }
}
