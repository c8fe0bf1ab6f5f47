/// Checks a model's meaning: names, inheritance, relationships and inverses, constraints and indexes, rules,
/// defaults and derivations. It gathers every problem; with a source map (a loaded file) each one gets a line.
///
/// Elements the parser already reported as broken are skipped, so that one typo gives one error.
struct ModelValidator {
    let model: ManagedObjectModel
    let sourceMap: ModelFileSourceMap
    let file: String?
    private(set) var errors: [ModelError] = []
    private(set) var warnings: [ModelWarning] = []
    /// Entities that are their own ancestors; inherited checks skip them.
    private(set) var entitiesInCycles: Set<String> = []

    init(model: ManagedObjectModel, sourceMap: ModelFileSourceMap = ModelFileSourceMap(), file: String? = nil) {
        self.model = model
        self.sourceMap = sourceMap
        self.file = file
    }

    /// Runs every check, filling ``errors`` and ``warnings``.
    mutating func run() {
        checkEntityNames()
        checkInheritance()
        for entity in model.entities where !sourceMap.isUnreliable(.entity(entity.name)) {
            checkPropertyNames(of: entity)
            for attribute in entity.attributes { checkAttribute(attribute, of: entity) }
            for relationship in entity.relationships { checkRelationship(relationship, of: entity) }
            checkConstraints(of: entity)
            checkIndexes(of: entity)
            checkFetchedProperties(of: entity)
        }
        checkTemplates()
        // The tables and indexes a sound model maps to; a broken one would only repeat the errors above.
        if errors.isEmpty { checkSchemaObjects() }
    }

    // MARK: - Entities

    private mutating func checkEntityNames() {
        var seen: [String: String] = [:]
        for entity in model.entities {
            let element = ModelElement.entity(entity.name)
            if let (code, message) = Self.nameProblem(entity.name, isEntity: true) {
                error(code, message, element)
            }
            if let earlier = seen[entity.name.lowercased()] {
                let message =
                    earlier == entity.name
                    ? "entity \(entity.name) is declared twice"
                    : "'\(entity.name)' differs from entity \(earlier) only in case; SQLite ignores case in names"
                error(.duplicateName, message, element)
            } else {
                seen[entity.name.lowercased()] = entity.name
            }
        }
    }

    private mutating func checkInheritance() {
        let names = model.entities.map(\.name)
        for entity in model.entities {
            let element = ModelElement.entity(entity.name)
            if let parent = entity.parentEntity, model.entity(named: parent) == nil {
                let message = NameSuggestion.unknown("parent entity", parent, expected: names)
                error(.unknownParent, message, element, key: "parent")
            }
            if entity.isAbstract && model.subentities(of: entity.name).isEmpty {
                warn(
                    .abstractWithoutSubentities,
                    "abstract, but no entity inherits from it, so none of its objects can exist", element,
                    key: "abstract")
            }
        }
        for entity in model.entities where !entitiesInCycles.contains(entity.name) {
            var path = [entity.name]
            var next = entity.parentEntity
            while let current = next, let parent = model.entity(named: current) {
                if let start = path.firstIndex(of: current) {
                    let cycle = Array(path[start...])
                    // An entity that only leads into a cycle found earlier adds nothing new.
                    if !entitiesInCycles.contains(current) {
                        let text = (cycle + [current]).joined(separator: " -> ")
                        error(.inheritanceCycle, "inheritance cycle: \(text)", .entity(current), key: "parent")
                    }
                    entitiesInCycles.formUnion(cycle)
                    break
                }
                path.append(current)
                next = parent.parentEntity
            }
        }
    }

    // MARK: - Names

    /// What is wrong with `name` as an entity or attribute name, if anything. Entity names are plain SQL
    /// identifiers; attribute names may be any text without a dot or a control character.
    static func nameProblem(_ name: String, isEntity: Bool) -> (ModelError.Code, String)? {
        let lowercased = name.lowercased()
        if name.isEmpty { return (.invalidName, "the name is empty") }
        if name.unicodeScalars.count > maximumNameLength {
            // A model file writes names as YAML keys, which YAML limits to 1,024 characters: a longer name could
            // be stored but never read back.
            return (
                .invalidName,
                "the name is \(name.unicodeScalars.count) characters long; names may have at most "
                    + "\(maximumNameLength)"
            )
        }
        if name.unicodeScalars.first == "\u{FEFF}" {
            // YAML reading drops it, so a store could not keep a model with such a name.
            return (
                .invalidName,
                "the name starts with U+FEFF (a byte order mark that is data, such as a second one in a CSV header), "
                    + "which a model file cannot keep; rename it"
            )
        }
        if isEntity && lowercased.hasPrefix("ferry_") {
            return (.reservedName, "'\(name)' is reserved: names starting with ferry_ belong to Ferry's own tables")
        }
        if isEntity && lowercased.hasPrefix("sqlite_") {
            return (.reservedName, "'\(name)' is reserved: names starting with sqlite_ belong to SQLite")
        }
        if !isEntity && ["_pk", "_ent", "_opt"].contains(lowercased) {
            return (.reservedName, "'\(name)' is reserved for Ferry's own columns _pk, _ent and _opt")
        }
        if !isEntity && name.hasPrefix("_") {
            return (.reservedName, "'\(name)' is reserved: names starting with _ belong to Ferry's own columns")
        }
        if !isEntity {
            // Attribute names may be any text a CSV header holds ("unit price", "2024 total"), since every
            // identifier is quoted in SQL; only a dot (the key-path separator) and control characters are refused.
            if let bad = name.unicodeScalars.first(where: { $0 == "." || $0.value < 0x20 || $0.value == 0x7F }) {
                let what = bad == "." ? "a dot, which separates key paths" : "a control character"
                return (.invalidName, "'\(name.debugDescription.dropFirst().dropLast())' contains \(what)")
            }
            return nil
        }
        let isLetter: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        let scalars = name.unicodeScalars
        let isIdentifier =
            scalars.first.map(isLetter) == true
            && scalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || $0 == "_" }
        if !isIdentifier {
            return (
                .invalidName,
                "'\(name)' is not a plain SQL identifier; use ASCII letters, digits and _, starting with a letter"
            )
        }
        return nil
    }

    // MARK: - Constraints and indexes

    private mutating func checkConstraints(of entity: EntityDescription) {
        let element = ModelElement.entity(entity.name)
        let attributes = model.allAttributes(of: entity.name)
        let relationships = model.allRelationships(of: entity.name)
        var earlier = Set(model.ancestry(of: entity.name).dropLast().flatMap(\.uniquenessConstraints).map(Set.init))
        for (index, constraint) in entity.uniquenessConstraints.enumerated() {
            let key = ModelFileSourceMap.constraintKey(index)
            let shown = "uniqueness constraint [\(constraint.joined(separator: ", "))]"
            if constraint.isEmpty { error(.invalidConstraint, "a uniqueness constraint is empty", element, key: key) }
            var seen: Set<String> = []
            for name in constraint {
                if !seen.insert(name).inserted {
                    error(.invalidConstraint, "\(shown) names '\(name)' twice", element, key: key)
                } else if let attribute = attributes.first(where: { $0.name == name }) {
                    if attribute.isTransient {
                        error(
                            .invalidConstraint, "\(shown) names transient attribute '\(name)', which has no column",
                            element, key: key)
                    } else if attribute.derivation != nil {
                        error(
                            .invalidConstraint,
                            "\(shown) names derived attribute '\(name)'; constraints may not use derived attributes",
                            element, key: key)
                    }
                } else if relationships.contains(where: { $0.name == name }) {
                    error(
                        .invalidConstraint,
                        "\(shown) names relationship '\(name)'; constraints may name attributes only", element, key: key
                    )
                } else {
                    let message = NameSuggestion.unknown("attribute", name, expected: attributes.map(\.name))
                    error(.invalidConstraint, "\(shown) names an \(message)", element, key: key)
                }
            }
            if !constraint.isEmpty && !earlier.insert(Set(constraint)).inserted {
                warn(.duplicateConstraint, "\(shown) is declared twice", element, key: key)
            }
        }
    }

    private mutating func checkIndexes(of entity: EntityDescription) {
        let element = ModelElement.entity(entity.name)
        let attributes = model.allAttributes(of: entity.name)
        let relationships = model.allRelationships(of: entity.name)
        for (index, names) in entity.indexes.enumerated() {
            let key = ModelFileSourceMap.indexKey(index)
            let shown = "index [\(names.joined(separator: ", "))]"
            if names.isEmpty { error(.invalidIndex, "an index is empty", element, key: key) }
            for name in names {
                if let attribute = attributes.first(where: { $0.name == name }) {
                    if attribute.isTransient {
                        error(
                            .invalidIndex, "\(shown) names transient attribute '\(name)', which has no column",
                            element, key: key)
                    }
                } else if let relationship = relationships.first(where: { $0.name == name }) {
                    if relationship.isToMany {
                        error(
                            .invalidIndex, "\(shown) names to-many relationship '\(name)', which has no column",
                            element, key: key)
                    }
                } else {
                    let candidates = attributes.map(\.name) + relationships.map(\.name)
                    let message = NameSuggestion.unknown("property", name, expected: candidates)
                    error(.invalidIndex, "\(shown) names an \(message)", element, key: key)
                }
            }
        }
    }

    // MARK: - Fetch request templates

    private mutating func checkTemplates() {
        let names = model.entities.map(\.name)
        for (name, template) in model.fetchRequestTemplates.sorted(by: { $0.key < $1.key }) {
            let element = ModelElement.fetchRequestTemplate(name)
            if name.isEmpty { error(.invalidName, "the name is empty", element) }
            if model.entity(named: template.entity) == nil {
                error(
                    .unknownEntity, NameSuggestion.unknown("entity", template.entity, expected: names), element,
                    key: "entity")
            }
            if template.predicate.allSatisfy(\.isWhitespace) {
                error(.invalidValue, "the predicate is empty", element, key: "predicate")
            }
        }
    }

    // MARK: - Reporting

    /// Records an error about `element`, at `key`'s line when known.
    mutating func error(_ code: ModelError.Code, _ message: String, _ element: ModelElement, key: String? = nil) {
        let position = sourceMap.position(of: element, key: key)
        errors.append(
            ModelError(code, message, element: element, file: file, line: position?.line, column: position?.column))
    }

    /// Records a warning about `element`, at `key`'s line when known.
    mutating func warn(_ code: ModelWarning.Code, _ message: String, _ element: ModelElement, key: String? = nil) {
        let position = sourceMap.position(of: element, key: key)
        warnings.append(ModelWarning(code, message, element: element, file: file, line: position?.line))
    }
}

extension ManagedObjectModel {
    /// Checks the model as loading a model file does, for a model built in Swift: names, inheritance, inverses,
    /// constraints, indexes, rules, defaults and derivations (see ``load(from:)``).
    ///
    /// - Returns: the warnings, such as relationships without an inverse.
    /// - Throws: ``ModelError`` gathering every problem (code ``ModelError/Code/multipleErrors`` when there are
    ///   several); the errors carry no file or line.
    @discardableResult
    public func validate() throws -> [ModelWarning] {
        var validator = ModelValidator(model: self)
        validator.run()
        guard validator.errors.isEmpty else { throw ModelError(gathering: validator.errors, file: nil) }
        return validator.warnings
    }
}
