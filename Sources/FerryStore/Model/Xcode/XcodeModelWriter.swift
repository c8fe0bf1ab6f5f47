import Foundation

extension ManagedObjectModel {
    /// The model as the XML `contents` file of an Xcode `.xcdatamodel`, with the element and attribute names Xcode
    /// writes, so that Xcode opens it and ``ManagedObjectModel/load(from:)`` reads it back to an equal model (the same
    /// ``versionHash``).
    ///
    /// Entities and properties are written in model order; derivations in Core Data's spelling (`@count items`
    /// becomes `items.@count`); date defaults and bounds as seconds since 2001 (`defaultDateTimeInterval`,
    /// `minDateTimeInterval`); each index as a fetch index named after its properties; renaming identifiers as
    /// `elementID`, Xcode's *Renaming ID*. Xcode lists entities by name when it saves the file again.
    public var xcodeModelContents: String {
        var writer = XcodeModelWriter()
        writer.write(self)
        return writer.text
    }

    /// Writes the model as an Xcode model at `path`: an `.xcdatamodel` folder holding ``xcodeModelContents`` in
    /// its `contents` file, or an `.xcdatamodeld` folder holding one version of that name and the
    /// `.xccurrentversion` naming it. An existing model at `path` is replaced.
    ///
    /// - Throws: ``ModelError`` with code ``ModelError/Code/invalidValue`` when `path` ends in neither extension;
    ///   Foundation's file errors when the folder or files cannot be written.
    public func writeXcodeModel(to path: String) throws {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        let fileManager = FileManager.default
        let versionFolder: String
        switch (trimmed as NSString).pathExtension {
        case "xcdatamodel":
            versionFolder = trimmed
        case "xcdatamodeld":
            let name = ((trimmed as NSString).lastPathComponent as NSString).deletingPathExtension
            versionFolder = (trimmed as NSString).appendingPathComponent(name + ".xcdatamodel")
        default:
            throw ModelError(
                .invalidValue, "an Xcode model's path ends in .xcdatamodel or .xcdatamodeld", file: path)
        }
        if fileManager.fileExists(atPath: trimmed) { try fileManager.removeItem(atPath: trimmed) }
        try fileManager.createDirectory(atPath: versionFolder, withIntermediateDirectories: true)
        try Data(xcodeModelContents.utf8).write(
            to: URL(fileURLWithPath: (versionFolder as NSString).appendingPathComponent("contents")), options: .atomic)
        if versionFolder != trimmed {
            let plist: [String: Any] = ["_XCCurrentVersionName": (versionFolder as NSString).lastPathComponent]
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            try data.write(
                to: URL(fileURLWithPath: (trimmed as NSString).appendingPathComponent(".xccurrentversion")),
                options: .atomic)
        }
    }
}

/// Writes a ``ManagedObjectModel`` as an Xcode model's XML (see ``ManagedObjectModel/xcodeModelContents``).
struct XcodeModelWriter {
    /// The lines written so far.
    private(set) var lines: [String] = []

    /// The text: the lines, each ended by a newline.
    var text: String {
        lines.map { $0 + "\n" }.joined()
    }

    mutating func write(_ model: ManagedObjectModel) {
        lines.append("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>")
        lines.append(
            "<model type=\"com.apple.IDECoreDataModeler.DataModel\" documentVersion=\"1.0\" "
                + "minimumToolsVersion=\"Automatic\" sourceLanguage=\"Swift\" userDefinedModelVersionIdentifier=\"\">")
        for entity in model.entities { write(entity) }
        for (name, template) in model.fetchRequestTemplates.sorted(by: { $0.key < $1.key }) {
            var settings = [("name", name), ("entity", template.entity)]
            // The reader takes a template without a predicate as one that fetches every object.
            if template.predicate != "TRUEPREDICATE" { settings.append(("predicateString", template.predicate)) }
            lines.append("    " + Self.tag("fetchRequest", settings, closed: true))
        }
        lines.append("</model>")
    }

    private mutating func write(_ entity: EntityDescription) {
        var settings = [("name", entity.name), ("representedClassName", entity.name)]
        if let parent = entity.parentEntity { settings.append(("parentEntity", parent)) }
        if entity.isAbstract { settings.append(("isAbstract", "YES")) }
        if let old = entity.renamingIdentifier { settings.append(("elementID", old)) }
        settings += [("syncable", "YES"), ("codeGenerationType", "class")]
        lines.append("    " + Self.tag("entity", settings, closed: false))
        for attribute in entity.attributes {
            lines.append("        " + Self.tag("attribute", Self.settings(of: attribute), closed: true))
        }
        for relationship in entity.relationships {
            lines.append("        " + Self.tag("relationship", Self.settings(of: relationship), closed: true))
        }
        for property in entity.fetchedProperties {
            let settings = [("name", property.name), ("optional", "YES")]
            lines.append("        " + Self.tag("fetchedProperty", settings, closed: false))
            let request = [
                ("name", "fetchedPropertyFetchRequest"), ("entity", property.destinationEntity),
                ("predicateString", property.predicate),
            ]
            lines.append("            " + Self.tag("fetchRequest", request, closed: true))
            lines.append("        </fetchedProperty>")
        }
        for index in entity.indexes {
            let name =
                "by" + index.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "And") + "Index"
            lines.append("        " + Self.tag("fetchIndex", [("name", name)], closed: false))
            for property in index {
                let settings = [("property", property), ("type", "Binary"), ("order", "ascending")]
                lines.append("            " + Self.tag("fetchIndexElement", settings, closed: true))
            }
            lines.append("        </fetchIndex>")
        }
        if !entity.uniquenessConstraints.isEmpty {
            lines.append("        <uniquenessConstraints>")
            for constraint in entity.uniquenessConstraints {
                lines.append("            <uniquenessConstraint>")
                for name in constraint {
                    lines.append("                " + Self.tag("constraint", [("value", name)], closed: true))
                }
                lines.append("            </uniquenessConstraint>")
            }
            lines.append("        </uniquenessConstraints>")
        }
        lines.append("    </entity>")
    }

    // MARK: - Properties

    static func settings(of attribute: AttributeDescription) -> [(String, String)] {
        var settings = [("name", attribute.name)]
        if attribute.isOptional { settings.append(("optional", "YES")) }
        if attribute.isTransient { settings.append(("transient", "YES")) }
        if attribute.isIndexed { settings.append(("indexed", "YES")) }
        settings.append(("attributeType", xcodeTypeName(attribute.type)))
        if attribute.type == .date {
            let offset = XcodeModelReader.referenceDateOffset
            if let min = attribute.minValue { settings.append(("minDateTimeInterval", number(min - offset))) }
            if let max = attribute.maxValue { settings.append(("maxDateTimeInterval", number(max - offset))) }
        } else if attribute.type.isNumeric {
            let integral = attribute.type.isInteger
            if let min = attribute.minValue { settings.append(("minValueString", number(min, integral: integral))) }
            if let max = attribute.maxValue { settings.append(("maxValueString", number(max, integral: integral))) }
        } else if attribute.type == .string {
            if let min = attribute.minLength { settings.append(("minValueString", "\(min)")) }
            if let max = attribute.maxLength { settings.append(("maxValueString", "\(max)")) }
        }
        if let value = attribute.defaultValue {
            if case .date(let date) = value {
                let interval = date.timeIntervalSince1970 - XcodeModelReader.referenceDateOffset
                settings.append(("defaultDateTimeInterval", number(interval)))
            } else {
                settings.append(("defaultValueString", text(of: value)))
            }
        }
        if attribute.type.isNumeric && attribute.type != .decimal || attribute.type == .boolean {
            settings.append(("usesScalarValueType", "YES"))
        }
        if let regex = attribute.regularExpression { settings.append(("regularExpressionString", regex)) }
        if attribute.allowsExternalStorage { settings.append(("allowsExternalBinaryDataStorage", "YES")) }
        if let derivation = attribute.derivation {
            settings += [("derived", "YES"), ("derivationExpression", XcodeDerivation.coreDataSyntax(of: derivation))]
        }
        if case .transformable(let transformer) = attribute.type {
            settings.append(("valueTransformerName", transformer))
            if let valueType = attribute.valueTypeName { settings.append(("customClassName", valueType)) }
        }
        if let old = attribute.renamingIdentifier { settings.append(("elementID", old)) }
        return settings
    }

    static func settings(of relationship: RelationshipDescription) -> [(String, String)] {
        var settings = [("name", relationship.name)]
        if relationship.isOptional { settings.append(("optional", "YES")) }
        if relationship.isToMany {
            settings.append(("toMany", "YES"))
            if relationship.minCount > 0 { settings.append(("minCount", "\(relationship.minCount)")) }
            if relationship.maxCount > 0 { settings.append(("maxCount", "\(relationship.maxCount)")) }
        } else {
            settings.append(("maxCount", "1"))
        }
        let rule = XcodeModelReader.deleteRules.first { $0.rule == relationship.deleteRule }?.name ?? "Nullify"
        settings.append(("deletionRule", rule))
        if relationship.isOrdered { settings.append(("ordered", "YES")) }
        settings.append(("destinationEntity", relationship.destinationEntity))
        if let inverse = relationship.inverseName {
            settings += [("inverseName", inverse), ("inverseEntity", relationship.destinationEntity)]
        }
        if let old = relationship.renamingIdentifier { settings.append(("elementID", old)) }
        return settings
    }

    /// The `attributeType` Xcode writes for `type`.
    static func xcodeTypeName(_ type: AttributeType) -> String {
        switch type {
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .binary: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        }
    }

    /// A default value as `defaultValueString` spells it (dates are written as intervals instead).
    static func text(of value: AttributeValue) -> String {
        switch value {
        case .integer(let integer): "\(integer)"
        case .double(let double): number(double)
        case .decimal(let decimal): "\(decimal)"
        case .string(let string): string
        case .boolean(let boolean): boolean ? "YES" : "NO"
        case .date(let date): number(date.timeIntervalSince1970 - XcodeModelReader.referenceDateOffset)
        case .binary(let data), .transformable(let data): data.base64EncodedString()
        case .uuid(let uuid): uuid.uuidString
        case .uri(let url): url.absoluteString
        }
    }

    /// A number as text that reads back to the same `Double`; whole numbers without `.0` where `integral`.
    static func number(_ value: Double, integral: Bool = false) -> String {
        if integral, value.rounded() == value, abs(value) < 9.2e18 { return "\(Int64(value))" }
        return "\(value)"
    }

    // MARK: - XML

    /// `<name a="1" b="2"/>` (or without the `/` when not `closed`), values escaped.
    static func tag(_ name: String, _ settings: [(String, String)], closed: Bool) -> String {
        let attributes = settings.map { " \($0.0)=\"\(escaped($0.1))\"" }.joined()
        return "<\(name)\(attributes)\(closed ? "/>" : ">")"
    }

    /// `text` as an XML attribute value: markup characters and line breaks as references.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            case "\t": result += "&#9;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
