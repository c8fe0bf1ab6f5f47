/// Reading settings (`YES`/`NO`, required names) and reporting problems and ignored parts at the line of the XML
/// element they are about.
extension XcodeModelReader {
    /// Records a problem at `xml`'s start tag (or the element's position, when there is no XML element).
    mutating func report(
        _ code: ModelError.Code, _ message: String, _ element: ModelElement, _ xml: XcodeXMLElement?
    ) {
        let position =
            xml.map { ModelFileSourceMap.Position(line: $0.line, column: $0.column) }
            ?? sourceMap.position(of: element)
        errors.append(
            ModelError(code, message, element: element, file: file, line: position?.line, column: position?.column))
    }

    /// Records a part of the file that Ferry does not use.
    mutating func warn(_ message: String, _ element: ModelElement, _ xml: XcodeXMLElement) {
        warnings.append(ModelWarning(.ignoredXcodeSetting, message, element: element, file: file, line: xml.line))
    }

    /// Remembers where `element` (or one `key` of it) was written.
    mutating func record(_ xml: XcodeXMLElement, for element: ModelElement, key: String? = nil) {
        sourceMap.record(ModelFileSourceMap.Position(line: xml.line, column: xml.column), for: element, key: key)
    }

    /// The setting `name` of `xml`, or `nil` (reported) when it is missing or empty.
    mutating func required(
        _ name: String, of xml: XcodeXMLElement, _ element: ModelElement, what: String
    ) -> String? {
        guard let value = xml[name], !value.isEmpty else {
            report(.missingKey, "\(what) needs \(name)=\"…\"", element, xml)
            return nil
        }
        return value
    }

    /// A `YES`/`NO` setting; absent is `NO`, as in Xcode's files.
    mutating func flag(_ name: String, of xml: XcodeXMLElement, _ element: ModelElement) -> Bool {
        guard let value = xml[name] else { return false }
        if let flag = Self.boolean(value) { return flag }
        report(.invalidValue, "\(name)=\"\(value)\" must be YES or NO", element, xml)
        return false
    }

    /// `YES`/`NO` as Xcode writes them, and `true`/`false`.
    static func boolean(_ text: String) -> Bool? {
        switch text {
        case "YES", "yes", "true", "TRUE", "1": true
        case "NO", "no", "false", "FALSE", "0": false
        default: nil
        }
    }

    /// A whole number setting, or `nil` (reported) when it is not one.
    mutating func integer(_ name: String, of xml: XcodeXMLElement, _ element: ModelElement) -> Int? {
        guard let value = xml[name] else { return nil }
        if let number = Int(value) { return number }
        report(.invalidValue, "\(name)=\"\(value)\" must be a whole number", element, xml)
        return nil
    }

    /// The renaming identifier of an entity or property: Xcode's *Renaming ID*, which it writes as `elementID`, the
    /// name the element had in the version a migration starts from (an empty one is none).
    func renamingIdentifier(of xml: XcodeXMLElement) -> String? {
        guard let identifier = xml["elementID"], !identifier.isEmpty else { return nil }
        return identifier
    }

    /// Warns about each XML attribute of `xml` outside `known`, so that no setting is dropped silently. A
    /// `renamingIdentifier` setting (Xcode writes the renaming identifier as `elementID`) and version hash modifiers
    /// get their own explanation.
    mutating func warnUnknownSettings(of xml: XcodeXMLElement, known: Set<String>, _ element: ModelElement) {
        for (setting, value) in xml.attributes.sorted(by: { $0.key < $1.key }) where !known.contains(setting) {
            let message: String
            switch setting {
            case "renamingIdentifier":
                message =
                    "renamingIdentifier=\"\(value)\" is ignored: Xcode keeps a renaming identifier as "
                    + "elementID=\"\(value)\"; write that"
            case "versionHashModifier":
                message = "version hash modifier '\(value)' is ignored: Ferry's version hash comes from the schema"
            case "spotlightIndexingEnabled", "storedInTruthFile", "storedInExternalRecord":
                message = "\(setting)=\"\(value)\" is ignored: Ferry has no Spotlight or external records"
            case "preserveValueOnDeletionInPersistentHistory", "preserveAfterDeletion":
                message = "\(setting)=\"\(value)\" is ignored: Ferry's history keeps no tombstone settings per property"
            default:
                message = "setting \(setting)=\"\(value)\" is not one Ferry knows; it is ignored"
            }
            warnings.append(ModelWarning(.ignoredXcodeSetting, message, element: element, file: file, line: xml.line))
        }
    }

    /// Warns once about a `<userInfo>` block, naming its keys.
    mutating func warnUserInfo(_ xml: XcodeXMLElement, of element: ModelElement, what: String) {
        let keys = xml.children.compactMap { $0["key"] }
        guard !keys.isEmpty else { return }
        warn(
            "user info of \(what) (\(keys.joined(separator: ", "))) is ignored: Ferry's model has no user info",
            element, xml)
    }
}
