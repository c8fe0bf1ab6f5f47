/// Turns the element tree of an Xcode model's `contents` file into a ``ManagedObjectModel``, the same value the
/// YAML parser builds, noting where each part was written so that ``ModelValidator`` can point at lines of the XML.
///
/// It reads what Ferry's model holds (see ``ManagedObjectModel/load(from:)`` for the Xcode side of the format) and
/// reports the rest: a part whose loss would change the data (a composite attribute, an attribute type Ferry
/// cannot store) is an error; a part that does not shape the store (a configuration, user info, a version hash
/// modifier) is a warning, so nothing is dropped silently. Settings that only steer Xcode's code
/// generator or editor (`representedClassName`, `codeGenerationType`, `customClassName` except a transformable's,
/// `usesScalarValueType`, `syncable`, the `<elements>` layout) are ignored by design.
struct XcodeModelReader {
    /// The path of the `contents` file, which diagnostics name.
    let file: String
    /// Problems found so far, in the order found.
    var errors: [ModelError] = []
    /// Parts of the file Ferry does not use, in the order found.
    var warnings: [ModelWarning] = []
    /// Where each part of the model was written.
    var sourceMap = ModelFileSourceMap()

    init(file: String) {
        self.file = file
    }

    /// The XML attributes of `<model>` that describe the file or steer Xcode; none shapes the store.
    static let modelSettings: Set<String> = [
        "name", "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion",
        "sourceLanguage", "userDefinedModelVersionIdentifier", "macOSVersion", "iOSVersion", "usedWithCloudKit",
        "usedWithSwiftData",
    ]
    /// The XML attributes of `<entity>` the reader knows.
    static let entitySettings: Set<String> = [
        "name", "parentEntity", "isAbstract", "representedClassName", "syncable", "codeGenerationType", "elementID",
    ]

    /// The model `root` describes. When ``errors`` is not empty afterwards the model is incomplete and must not be
    /// used.
    mutating func read(_ root: XcodeXMLElement) -> ManagedObjectModel {
        guard root.name == "model" else {
            report(
                .invalidValue, "the root element is <\(root.name)>; expected <model>, as Xcode writes", .model, root)
            return ManagedObjectModel(entities: [])
        }
        warnUnknownSettings(of: root, known: Self.modelSettings, .model)
        var entities: [EntityDescription] = []
        var templates: [String: FetchRequestTemplate] = [:]
        for child in root.children {
            switch child.name {
            case "entity":
                if let entity = readEntity(child) { entities.append(entity) }
            case "fetchRequest":
                if let (name, template) = readTemplate(child) {
                    if templates[name] != nil {
                        report(
                            .duplicateName, "fetch request template \(name) is declared twice",
                            .fetchRequestTemplate(name), child)
                    }
                    templates[name] = template
                }
            case "configuration":
                let name = child["name"] ?? "(unnamed)"
                warn(
                    "configuration '\(name)' is ignored: a Ferry store holds every entity of the model", .model, child)
            case "composite", "compositeAttribute":
                report(
                    .unsupportedFeature,
                    "composite attribute '\(child["name"] ?? "(unnamed)")' is not supported by Ferry; "
                        + "model its fields as attributes of the entities that use it", .model, child)
            case "elements":
                break  // The diagram's layout.
            case "userInfo":
                warnUserInfo(child, of: .model, what: "the model")
            default:
                warn("element <\(child.name)> is not one Ferry knows; it is ignored", .model, child)
            }
        }
        if entities.isEmpty && errors.isEmpty {
            report(.missingKey, "the model declares no entities; expected at least one <entity>", .model, root)
        }
        return ManagedObjectModel(entities: entities, fetchRequestTemplates: templates)
    }

    // MARK: - Entities

    private mutating func readEntity(_ xml: XcodeXMLElement) -> EntityDescription? {
        guard let name = required("name", of: xml, .model, what: "an <entity>") else { return nil }
        let element = ModelElement.entity(name)
        record(xml, for: element)
        warnUnknownSettings(of: xml, known: Self.entitySettings, element)
        var entity = EntityDescription(name: name)
        entity.isAbstract = flag("isAbstract", of: xml, element)
        entity.parentEntity = xml["parentEntity"]
        entity.renamingIdentifier = renamingIdentifier(of: xml)
        for child in xml.children {
            switch child.name {
            case "attribute":
                if let attribute = readAttribute(child, of: name) { entity.attributes.append(attribute) }
            case "relationship":
                if let relationship = readRelationship(child, of: name) { entity.relationships.append(relationship) }
            case "uniquenessConstraints":
                for constraint in child.children {
                    guard constraint.name == "uniquenessConstraint" else {
                        warn("element <\(constraint.name)> is not one Ferry knows; it is ignored", element, constraint)
                        continue
                    }
                    let names = names(in: constraint, child: "constraint", element)
                    record(
                        constraint, for: element,
                        key: ModelFileSourceMap.constraintKey(entity.uniquenessConstraints.count))
                    entity.uniquenessConstraints.append(names)
                }
            case "fetchIndex":
                if let index = readFetchIndex(child, element) {
                    record(child, for: element, key: ModelFileSourceMap.indexKey(entity.indexes.count))
                    entity.indexes.append(index)
                }
            case "compoundIndexes":
                // The form of Xcode before fetch indexes: `<compoundIndex><index value="a"/>…</compoundIndex>`.
                for compound in child.children where compound.name == "compoundIndex" {
                    record(compound, for: element, key: ModelFileSourceMap.indexKey(entity.indexes.count))
                    entity.indexes.append(names(in: compound, child: "index", element))
                }
            case "fetchedProperty":
                if let property = readFetchedProperty(child, of: name) { entity.fetchedProperties.append(property) }
            case "userInfo":
                warnUserInfo(child, of: element, what: "entity \(name)")
            default:
                if child.name == "composite" || child["attributeType"] == "Composite" {
                    report(.unsupportedFeature, "composite attributes are not supported by Ferry", element, child)
                } else {
                    warn("element <\(child.name)> is not one Ferry knows; it is ignored", element, child)
                }
            }
        }
        return entity
    }

    /// The `value` of each `<child value="…"/>` of `xml`: the names of a constraint or an old compound index.
    private mutating func names(in xml: XcodeXMLElement, child: String, _ element: ModelElement) -> [String] {
        var names: [String] = []
        for item in xml.children {
            guard item.name == child, let value = item["value"] else {
                report(.invalidValue, "expected <\(child) value=\"NAME\"/>; found <\(item.name)>", element, item)
                continue
            }
            names.append(value)
        }
        return names
    }

    private mutating func readFetchIndex(_ xml: XcodeXMLElement, _ element: ModelElement) -> [String]? {
        warnUnknownSettings(of: xml, known: ["name"], element)
        let indexName = xml["name"] ?? "(unnamed)"
        var names: [String] = []
        for item in xml.children {
            guard item.name == "fetchIndexElement" else {
                warn("element <\(item.name)> is not one Ferry knows; it is ignored", element, item)
                continue
            }
            warnUnknownSettings(
                of: item, known: ["property", "type", "order", "expression", "expressionType"], element)
            guard let property = item["property"] else {
                report(
                    .unsupportedFeature,
                    "fetch index \(indexName): an index on an expression is not supported by Ferry; "
                        + "index a property, or derive an attribute from the expression and index that", element, item)
                return nil
            }
            if let type = item["type"], type != "Binary" {
                warn(
                    "fetch index \(indexName): type \(type) is made as an ordinary (B-tree) index", element, item)
            }
            if let order = item["order"], order != "ascending" {
                warn(
                    "fetch index \(indexName): order \(order) is ignored; SQLite reads an index in either direction",
                    element, item)
            }
            names.append(property)
        }
        return names
    }

    // MARK: - Fetch request templates

    private mutating func readTemplate(_ xml: XcodeXMLElement) -> (String, FetchRequestTemplate)? {
        guard let name = required("name", of: xml, .model, what: "a <fetchRequest>") else { return nil }
        let element = ModelElement.fetchRequestTemplate(name)
        record(xml, for: element)
        for (setting, value) in xml.attributes.sorted(by: { $0.key < $1.key })
        where !["name", "entity", "predicateString"].contains(setting) {
            warn("setting \(setting)=\"\(value)\" is ignored: a Ferry template keeps its predicate only", element, xml)
        }
        guard let entity = required("entity", of: xml, element, what: "a <fetchRequest>") else { return nil }
        // Xcode leaves out the predicate of a template that fetches every object.
        let predicate = xml["predicateString"] ?? "TRUEPREDICATE"
        return (name, FetchRequestTemplate(entity: entity, predicate: predicate))
    }
}
