import FerryStore

/// The machine class of an entity: key constants, typed attributes and relationships, fetch request templates.
extension SwiftModelGenerator {
    func machineClass(_ entityName: String) -> String {
        guard let entity = model.entity(named: entityName) else { preconditionFailure("no entity \(entityName)") }
        let base = entity.parentEntity ?? typeName("ManagedObject")
        var lines: [String] = []
        lines.append("/// The generated base of ``\(entityName)``: the \(entityName) entity's properties, typed.")
        lines.append("///")
        lines.append("/// Its objects come from a context once ``\(modelTypeName)`` registered the classes:")
        lines.append("/// `\(entityName).insert(into: context)`, `context.fetch(\(entityName).fetchRequest())`.")
        let conformance = entity.parentEntity == nil ? ", \(typeName("EntityClass"))" : ""
        lines.append("\(classAccess)class _\(entityName): \(base)\(conformance) {")
        lines.append("    /// The entity's name in the model.")
        let overriding = entity.parentEntity == nil ? "" : "override "
        lines.append("    \(overriding)\(access)class var entityName: \(typeName("String")) { \(literal(entityName)) }")
        lines += keyConstants(entityName)
        for attribute in entity.attributes { lines += [""] + attributeProperty(attribute, of: entityName) }
        for relationship in entity.relationships {
            lines += [""] + relationshipAccessors(relationship, of: entityName)
        }
        let templates = model.fetchRequestTemplates.filter { $0.value.entity == entityName }.sorted { $0.key < $1.key }
        for (name, template) in templates { lines += [""] + templateFunction(name, template) }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Attributes` and `Relationships`: the names of every property, inherited ones included, for predicates and
    /// sort descriptors (`FetchSortDescriptor(key: Product.Attributes.price)`).
    private func keyConstants(_ entityName: String) -> [String] {
        var lines: [String] = []
        let groups = [
            ("Attributes", "attribute", model.allAttributes(of: entityName).map(\.name)),
            ("Relationships", "relationship", model.allRelationships(of: entityName).map(\.name)),
        ]
        for (group, what, names) in groups where !names.isEmpty {
            lines.append("")
            lines.append("    /// The name of each \(what) of \(entityName), for predicates and sort descriptors.")
            lines.append("    \(access)enum \(group) {")
            for name in names {
                lines.append(
                    "        \(access)static let \(SwiftIdentifiers.escaped(name)): \(typeName("String")) = "
                        + literal(name))
            }
            lines.append("    }")
        }
        return lines
    }

    /// The Swift type of an attribute's values, or `nil` for a transformable (whose type the model does not say).
    func swiftType(of type: AttributeType) -> String? {
        switch type {
        case .integer16: typeName("Int16")
        case .integer32: typeName("Int32")
        case .integer64: typeName("Int64")
        case .double: typeName("Double")
        case .float: typeName("Float")
        case .decimal: typeName("Decimal")
        case .string: typeName("String")
        case .boolean: typeName("Bool")
        case .date: typeName("Date")
        case .binary: typeName("Data")
        case .uuid: typeName("UUID")
        case .uri: typeName("URL")
        case .transformable: nil
        }
    }

    private func attributeProperty(_ attribute: AttributeDescription, of entity: String) -> [String] {
        let name = SwiftIdentifiers.propertyName(attribute.name)
        let key = literal(attribute.name)
        var summary = "    /// The attribute \(attribute.name) (\(attribute.type.name)"
        if !attribute.isOptional { summary += ", required" }
        if attribute.derivation != nil { summary += ", derived: read-only" }
        if attribute.isTransient { summary += ", transient" }
        summary += ")."
        guard let type = swiftType(of: attribute.type) else {
            guard case .transformable(let transformer) = attribute.type else { return [] }
            let suffix = SwiftIdentifiers.capitalized(attribute.name)
            if let valueType = attribute.valueTypeName {
                return transformableProperty(attribute, of: entity, valueType: valueType, transformer: transformer)
            }
            return [
                "    /// The attribute \(attribute.name) (transformable through \(transformer)), decoded as `type`.",
                "    \(access)func \(name)<Value: Decodable>(as type: Value.Type) throws -> Value? {",
                "        try transformable(type, forKey: \(key))",
                "    }",
                "",
                "    /// Sets the attribute \(attribute.name), encoded through \(transformer); nil clears it.",
                "    \(access)func set\(suffix)<Value: Encodable>(_ value: Value?) throws {",
                "        try setTransformable(value, forKey: \(key))",
                "    }",
            ]
        }
        let readOnly = attribute.derivation != nil
        var lines = [summary]
        if attribute.isOptional {
            if readOnly {
                lines.append("    \(access)var \(name): \(type)? { self[\(key)] }")
                return lines
            }
            lines.append("    \(access)var \(name): \(type)? {")
            lines.append("        get { self[\(key)] }")
            lines.append("        set { self[\(key)] = newValue }")
            lines.append("    }")
            return lines
        }
        lines.append("    ///")
        lines.append(
            "    /// Reading it before it has a value traps: set it after inserting, or give it a default in the model."
        )
        lines.append("    \(access)var \(name): \(type) {")
        let indent = readOnly ? "        " : "            "
        if !readOnly { lines.append("        get {") }
        lines.append("\(indent)guard let value: \(type) = self[\(key)] else {")
        lines.append(
            "\(indent)    preconditionFailure(\"\(entity).\(attribute.name) is required and has no value yet\")")
        lines.append("\(indent)}")
        lines.append("\(indent)return value")
        if !readOnly {
            lines.append("        }")
            lines.append("        set { self[\(key)] = newValue }")
        }
        lines.append("    }")
        return lines
    }

    /// A transformable whose Swift type the model gives (`valueType`, Xcode's `customClassName`): a throwing
    /// property, as decoding can fail, and a throwing setter function.
    private func transformableProperty(
        _ attribute: AttributeDescription, of entity: String, valueType: String, transformer: String
    ) -> [String] {
        let name = SwiftIdentifiers.propertyName(attribute.name)
        let key = literal(attribute.name)
        let suffix = SwiftIdentifiers.capitalized(attribute.name)
        var lines = [
            "    /// The attribute \(attribute.name) (transformable through \(transformer)"
                + (attribute.isOptional ? "" : ", required") + "), decoded."
        ]
        if attribute.isOptional {
            lines += [
                "    \(access)var \(name): \(valueType)? {",
                "        get throws { try transformable((\(valueType)).self, forKey: \(key)) }",
                "    }",
            ]
        } else {
            lines += [
                "    ///",
                "    /// Reading it before it has a value traps: set it after inserting, or give it a default in the "
                    + "model.",
                "    \(access)var \(name): \(valueType) {",
                "        get throws {",
                "            guard let value = try transformable((\(valueType)).self, forKey: \(key)) else {",
                "                preconditionFailure(\"\(entity).\(attribute.name) is required and has no value yet\")",
                "            }",
                "            return value",
                "        }",
                "    }",
            ]
        }
        guard attribute.derivation == nil else { return lines }
        lines += [
            "",
            "    /// Sets the attribute \(attribute.name), encoded through \(transformer)"
                + (attribute.isOptional ? "; nil clears it." : "."),
            "    \(access)func set\(suffix)(_ value: \(valueType)\(attribute.isOptional ? "?" : "")) throws {",
            "        try setTransformable(value, forKey: \(key))",
            "    }",
        ]
        return lines
    }

    private func relationshipAccessors(_ relationship: RelationshipDescription, of entity: String) -> [String] {
        let name = SwiftIdentifiers.propertyName(relationship.name)
        let key = literal(relationship.name)
        let destination = relationship.destinationEntity
        guard relationship.isToMany else {
            return [
                "    /// The relationship \(relationship.name): one \(destination)"
                    + (relationship.isOptional ? ", or nil." : " (required by the model; nil until set)."),
                "    \(access)var \(name): \(destination)? {",
                "        get { object(forKey: \(key), as: \(destination).self) }",
                "        set { setObject(newValue, forKey: \(key)) }",
                "    }",
            ]
        }
        let suffix = SwiftIdentifiers.capitalized(relationship.name)
        var lines: [String]
        if relationship.isOrdered {
            lines = [
                "    /// The relationship \(relationship.name): \(destination) objects, in order.",
                "    \(access)var \(name): [\(destination)] {",
                "        get { objects(forKey: \(key), as: \(destination).self) }",
                "        set { setObjects(newValue, forKey: \(key)) }",
                "    }",
            ]
        } else {
            lines = [
                "    /// The relationship \(relationship.name): a set of \(destination) objects.",
                "    \(access)var \(name): \(typeName("Set"))<\(destination)> {",
                "        get { \(typeName("Set"))(objects(forKey: \(key), as: \(destination).self)) }",
                "        set { setObjects([\(destination)](newValue), forKey: \(key)) }",
                "    }",
            ]
        }
        lines += [
            "",
            "    /// Adds `object` to \(relationship.name)" + (relationship.isOrdered ? " (at the end)" : "")
                + ", and this object to the inverse.",
            "    \(access)func addTo\(suffix)(_ object: \(destination)) {",
            "        add(object, toKey: \(key))",
            "    }",
            "",
            "    /// Removes `object` from \(relationship.name), and this object from the inverse.",
            "    \(access)func removeFrom\(suffix)(_ object: \(destination)) {",
            "        remove(object, fromKey: \(key))",
            "    }",
        ]
        return lines
    }

    /// `text` as a Swift string literal.
    func literal(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped + "\""
    }
}
