import Foundation

/// `<attribute>` elements: the type, flags, default value, validation rules, derivation and transformer.
extension XcodeModelReader {
    /// The XML attributes of `<attribute>` the reader knows.
    static let attributeSettings: Set<String> = [
        "name", "optional", "transient", "indexed", "attributeType", "defaultValueString", "defaultDateTimeInterval",
        "minValueString", "maxValueString", "minDateTimeInterval", "maxDateTimeInterval", "regularExpressionString",
        "allowsExternalBinaryDataStorage", "derived", "derivationExpression", "valueTransformerName",
        "customClassName", "usesScalarValueType", "syncable", "elementID",
    ]

    /// Seconds from 1970 to 2001, the reference date of Xcode's `…DateTimeInterval` settings.
    static let referenceDateOffset: Double = 978_307_200

    mutating func readAttribute(_ xml: XcodeXMLElement, of entity: String) -> AttributeDescription? {
        guard let name = required("name", of: xml, .entity(entity), what: "an <attribute>") else { return nil }
        let element = ModelElement.attribute(entity: entity, name: name)
        record(xml, for: element)
        warnUnknownSettings(of: xml, known: Self.attributeSettings, element)
        for child in xml.children {
            if child.name == "userInfo" {
                warnUserInfo(child, of: element, what: "attribute \(name)")
            } else {
                warn("element <\(child.name)> is not one Ferry knows; it is ignored", element, child)
            }
        }
        guard let type = attributeType(xml, element) else {
            sourceMap.markUnreliable(element)
            return AttributeDescription(name: name, type: .string)
        }
        var attribute = AttributeDescription(name: name, type: type)
        attribute.isOptional = flag("optional", of: xml, element)
        attribute.isTransient = flag("transient", of: xml, element)
        attribute.isIndexed = flag("indexed", of: xml, element)
        attribute.allowsExternalStorage = flag("allowsExternalBinaryDataStorage", of: xml, element)
        attribute.regularExpression = xml["regularExpressionString"]
        attribute.renamingIdentifier = renamingIdentifier(of: xml)
        if case .transformable = type, let valueType = xml["customClassName"], !valueType.isEmpty {
            attribute.valueTypeName = valueType
        }
        attribute.defaultValue = defaultValue(xml, type: type, element)
        readBounds(xml, into: &attribute, element)
        if flag("derived", of: xml, element) {
            if let expression = xml["derivationExpression"], !expression.isEmpty {
                attribute.derivation = XcodeDerivation.ferrySyntax(of: expression)
            } else {
                report(.missingKey, "derived=\"YES\" needs derivationExpression=\"…\"", element, xml)
            }
        } else if let expression = xml["derivationExpression"] {
            warn("derivationExpression \"\(expression)\" is ignored: derived is not YES", element, xml)
        }
        return attribute
    }

    /// The type `attributeType` names, or `nil` (reported).
    private mutating func attributeType(_ xml: XcodeXMLElement, _ element: ModelElement) -> AttributeType? {
        guard let name = required("attributeType", of: xml, element, what: "an <attribute>") else { return nil }
        switch name {
        case "Integer 16": return .integer16
        case "Integer 32": return .integer32
        case "Integer 64": return .integer64
        case "Decimal": return .decimal
        case "Double": return .double
        case "Float": return .float
        case "String": return .string
        case "Boolean": return .boolean
        case "Date": return .date
        case "Binary": return .binary
        case "UUID": return .uuid
        case "URI": return .uri
        case "Transformable":
            guard let transformer = xml["valueTransformerName"], !transformer.isEmpty else {
                report(
                    .missingKey,
                    "a Transformable attribute needs valueTransformerName=\"NAME\", the name of a Codable transformer "
                        + "registered with Ferry (Core Data's default archiving transformer has no Ferry equivalent)",
                    element, xml)
                return nil
            }
            return .transformable(transformer: transformer)
        case "Composite":
            report(
                .unsupportedFeature,
                "composite attribute of type '\(xml["composite"] ?? "(unnamed)")' is not supported by Ferry; "
                    + "model its fields as attributes", element, xml)
            return nil
        case "Undefined", "Object ID":
            report(
                .unsupportedFeature,
                "attribute type '\(name)' has no column in a Ferry store; Ferry does not support it",
                element, xml)
            return nil
        default:
            report(.unknownType, NameSuggestion.unknown("attributeType", name, expected: Self.typeNames), element, xml)
            return nil
        }
    }

    /// The attribute types Xcode writes, in its order.
    static let typeNames = [
        "Integer 16", "Integer 32", "Integer 64", "Decimal", "Double", "Float", "String", "Boolean", "Date", "Binary",
        "UUID", "URI", "Transformable",
    ]

    /// The default value: `defaultDateTimeInterval` (seconds since 2001) for dates, `defaultValueString` read by the
    /// type otherwise (`YES`/`NO` for booleans, exact text for decimals).
    private mutating func defaultValue(
        _ xml: XcodeXMLElement, type: AttributeType, _ element: ModelElement
    ) -> AttributeValue? {
        if type == .date, let interval = xml["defaultDateTimeInterval"] {
            guard let seconds = Double(interval), seconds.isFinite else {
                report(.invalidDefault, "defaultDateTimeInterval=\"\(interval)\" must be a number", element, xml)
                return nil
            }
            return .date(Date(timeIntervalSince1970: seconds + Self.referenceDateOffset))
        }
        guard let text = xml["defaultValueString"] else { return nil }
        let value: AttributeValue?
        switch type {
        case .boolean: value = Self.boolean(text).map { .boolean($0) }
        case .date: value = Self.date(text).map { .date($0) }
        default: value = ModelFileParser.value(text, type: type)
        }
        if value == nil {
            report(
                .invalidDefault, "defaultValueString=\"\(text)\" is not a valid \(type.name)", element, xml)
        }
        return value
    }

    /// `minValueString`/`maxValueString`: bounds of numbers, lengths of strings; dates take
    /// `minDateTimeInterval`/`maxDateTimeInterval`.
    private mutating func readBounds(
        _ xml: XcodeXMLElement, into attribute: inout AttributeDescription, _ element: ModelElement
    ) {
        let type = attribute.type
        for (setting, isMin) in [("minValueString", true), ("maxValueString", false)] {
            guard let text = xml[setting] else { continue }
            if type.isNumeric {
                guard let value = Double(text), value.isFinite else {
                    report(.invalidValue, "\(setting)=\"\(text)\" must be a number", element, xml)
                    continue
                }
                if isMin { attribute.minValue = value } else { attribute.maxValue = value }
            } else if type == .string {
                guard let length = Int(text) else {
                    report(.invalidValue, "\(setting)=\"\(text)\" must be a whole number (a length)", element, xml)
                    continue
                }
                if isMin { attribute.minLength = length } else { attribute.maxLength = length }
            } else if type == .date {
                if xml[isMin ? "minDateTimeInterval" : "maxDateTimeInterval"] == nil {
                    guard let date = Self.date(text) else {
                        report(.invalidValue, "\(setting)=\"\(text)\" must be a date", element, xml)
                        continue
                    }
                    if isMin {
                        attribute.minValue = date.timeIntervalSince1970
                    } else {
                        attribute.maxValue = date.timeIntervalSince1970
                    }
                }
            } else {
                warn("\(setting)=\"\(text)\" is ignored: Ferry checks no bounds on \(type.name) values", element, xml)
            }
        }
        for (setting, isMin) in [("minDateTimeInterval", true), ("maxDateTimeInterval", false)] {
            guard let text = xml[setting] else { continue }
            guard type == .date, let seconds = Double(text), seconds.isFinite else {
                report(.invalidValue, "\(setting)=\"\(text)\" must be a number of seconds on a Date", element, xml)
                continue
            }
            if isMin {
                attribute.minValue = seconds + Self.referenceDateOffset
            } else {
                attribute.maxValue = seconds + Self.referenceDateOffset
            }
        }
    }

    /// A date as Xcode's editor writes it in `defaultValueString` (`2026-01-05 09:00:00 +0000`), or ISO-8601.
    static func date(_ text: String) -> Date? {
        if let date = ModelFileParser.date(text) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return formatter.date(from: text)
    }
}
