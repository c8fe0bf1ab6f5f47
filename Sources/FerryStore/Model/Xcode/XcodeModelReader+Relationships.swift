/// `<relationship>` elements: destination, inverse, to-many and ordering, counts and delete rule.
extension XcodeModelReader {
    /// The XML attributes of `<relationship>` the reader knows.
    static let relationshipSettings: Set<String> = [
        "name", "optional", "toMany", "ordered", "minCount", "maxCount", "deletionRule", "destinationEntity",
        "inverseName", "inverseEntity", "syncable", "transient", "elementID",
    ]

    /// Xcode's delete rule names and Ferry's rules.
    static let deleteRules: [(name: String, rule: DeleteRule)] = [
        ("Nullify", .nullify), ("Cascade", .cascade), ("Deny", .deny), ("No Action", .noAction),
    ]

    mutating func readRelationship(_ xml: XcodeXMLElement, of entity: String) -> RelationshipDescription? {
        guard let name = required("name", of: xml, .entity(entity), what: "a <relationship>") else { return nil }
        let element = ModelElement.relationship(entity: entity, name: name)
        record(xml, for: element)
        warnUnknownSettings(of: xml, known: Self.relationshipSettings, element)
        for child in xml.children {
            if child.name == "userInfo" {
                warnUserInfo(child, of: element, what: "relationship \(name)")
            } else {
                warn("element <\(child.name)> is not one Ferry knows; it is ignored", element, child)
            }
        }
        guard let destination = required("destinationEntity", of: xml, element, what: "a <relationship>") else {
            sourceMap.markUnreliable(element)
            return RelationshipDescription(name: name, destinationEntity: "")
        }
        var relationship = RelationshipDescription(name: name, destinationEntity: destination)
        if flag("transient", of: xml, element) {
            report(
                .unsupportedFeature, "a transient relationship is not supported by Ferry: relationships are stored",
                element, xml)
        }
        relationship.isOptional = flag("optional", of: xml, element)
        relationship.isToMany = flag("toMany", of: xml, element)
        relationship.isOrdered = flag("ordered", of: xml, element)
        relationship.inverseName = xml["inverseName"]
        relationship.renamingIdentifier = renamingIdentifier(of: xml)
        if let inverseEntity = xml["inverseEntity"], inverseEntity != destination {
            report(
                .inverseMismatch,
                "inverseEntity=\"\(inverseEntity)\" differs from destinationEntity=\"\(destination)\"", element, xml)
        }
        // Xcode writes maxCount="1" (older files also minCount="1") on every to-one: that is what to-one means, not
        // a rule. Counts are rules of to-many relationships only.
        if relationship.isToMany {
            relationship.minCount = integer("minCount", of: xml, element) ?? 0
            relationship.maxCount = integer("maxCount", of: xml, element) ?? 0
        } else if let maxCount = xml["maxCount"], maxCount != "1" {
            report(
                .invalidRule, "maxCount=\"\(maxCount)\" on a to-one relationship; write toMany=\"YES\" for a to-many",
                element, xml)
        }
        if let ruleName = xml["deletionRule"] {
            if let rule = Self.deleteRules.first(where: { $0.name == ruleName })?.rule {
                relationship.deleteRule = rule
            } else {
                report(
                    .invalidValue,
                    NameSuggestion.unknown("deletionRule", ruleName, expected: Self.deleteRules.map(\.name)),
                    element, xml)
            }
        }
        return relationship
    }
}
