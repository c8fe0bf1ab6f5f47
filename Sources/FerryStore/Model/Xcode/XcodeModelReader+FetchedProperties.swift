extension XcodeModelReader {
    /// A `<fetchedProperty>` with its `<fetchRequest entity="…" predicateString="…"/>`; a request without a
    /// predicate fetches every object of its entity, as for templates.
    mutating func readFetchedProperty(_ xml: XcodeXMLElement, of entityName: String) -> FetchedPropertyDescription? {
        guard let name = required("name", of: xml, .entity(entityName), what: "a <fetchedProperty>") else {
            return nil
        }
        let element = ModelElement.fetchedProperty(entity: entityName, name: name)
        record(xml, for: element)
        warnUnknownSettings(of: xml, known: ["name", "optional", "syncable"], element)
        let requests = xml.children.filter { $0.name == "fetchRequest" }
        for other in xml.children where other.name != "fetchRequest" {
            warn("element <\(other.name)> is not one Ferry knows; it is ignored", element, other)
        }
        guard let request = requests.first else {
            report(.missingKey, "a <fetchedProperty> needs a <fetchRequest entity=\"…\">", element, xml)
            return nil
        }
        warnUnknownSettings(of: request, known: ["name", "entity", "predicateString"], element)
        guard let entity = required("entity", of: request, element, what: "the <fetchRequest> of a fetched property")
        else { return nil }
        return FetchedPropertyDescription(
            name: name, destinationEntity: entity, predicate: request["predicateString"] ?? "TRUEPREDICATE")
    }
}
