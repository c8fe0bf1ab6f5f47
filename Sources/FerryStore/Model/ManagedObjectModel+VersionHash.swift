import Foundation

extension ManagedObjectModel {
    /// A fingerprint of everything that shapes the store, as 64 hex digits: the SHA-256 of a canonical text of
    /// the model (see `versionHashText`). Identical across processes, runs and machines for the same model; a
    /// store records it, and a different hash on open means the store needs a migration.
    ///
    /// What counts:
    /// - entities, in model order (entity numbers, `_ent`, follow it; see ``StoreSchema``), with their parent and
    ///   abstract flag;
    /// - stored attributes (transient ones have no column), by name: type (and transformer), optionality, default,
    ///   indexed, external storage and derivation (the store maintains derived values with triggers);
    /// - relationships, by name: destination, to-many, ordered, optionality, inverse and delete rule;
    /// - uniqueness constraints and indexes (each an index in the store), with their columns in order.
    ///
    /// What does not: validation-only rules (min/max, lengths, regex, min/max counts), transient attributes,
    /// fetch request templates, the order in which properties are written, and the order in which constraints and
    /// indexes are listed (the columns inside one keep their order: they name the index).
    public var versionHash: String {
        SHA256.hex(of: versionHashText)
    }

    /// Each entity's own fingerprint, by entity name: the SHA-256 of its part of `versionHashText`, so that a
    /// migration can tell which entities changed.
    public var entityVersionHashes: [String: String] {
        Dictionary(entities.map { ($0.name, SHA256.hex(of: Self.canonicalText(of: $0))) }) { first, _ in first }
    }

    /// The canonical text that ``versionHash`` digests: a version line, then one block per entity in model order.
    /// Strings are quoted and escaped, so no name can forge a line.
    var versionHashText: String {
        "ferry model version hash 1\n" + entities.map(Self.canonicalText(of:)).joined()
    }

    /// One entity's block: its header, stored attributes and relationships by name, constraints and indexes.
    static func canonicalText(of entity: EntityDescription) -> String {
        let parent = entity.parentEntity.map(quoted) ?? "-"
        var lines = ["entity \(quoted(entity.name)) abstract=\(entity.isAbstract) parent=\(parent)"]
        for attribute in entity.attributes.filter(\.isStored).sorted(by: { $0.name < $1.name }) {
            var line = "  attribute \(quoted(attribute.name)) type=\(attribute.type.name)"
            if case .transformable(let transformer) = attribute.type { line += " transformer=\(quoted(transformer))" }
            line += " optional=\(attribute.isOptional)"
            line += " default=\(attribute.defaultValue.map(canonicalText(of:)) ?? "-")"
            line += " indexed=\(attribute.isIndexed) externalStorage=\(attribute.allowsExternalStorage)"
            line += " derivation=\(attribute.derivation.map(quoted) ?? "-")"
            lines.append(line)
        }
        for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
            lines.append(
                "  relationship \(quoted(relationship.name)) to=\(quoted(relationship.destinationEntity))"
                    + " toMany=\(relationship.isToMany) ordered=\(relationship.isOrdered)"
                    + " optional=\(relationship.isOptional) inverse=\(relationship.inverseName.map(quoted) ?? "-")"
                    + " deleteRule=\(relationship.deleteRule.rawValue)")
        }
        let list: ([String]) -> String = { "[" + $0.map(quoted).joined(separator: ",") + "]" }
        lines += entity.uniquenessConstraints.map { "  unique \(list($0))" }.sorted()
        lines += entity.indexes.map { "  index \(list($0))" }.sorted()
        return lines.joined(separator: "\n") + "\n"
    }

    /// A value with its kind, in a spelling that does not depend on locale or process.
    static func canonicalText(of value: AttributeValue) -> String {
        switch value {
        case .integer(let integer): "integer:\(integer)"
        case .double(let double): "double:\(double)"
        case .decimal(let decimal): "decimal:\(decimal)"
        case .string(let string): "string:\(quoted(string))"
        case .boolean(let boolean): "boolean:\(boolean)"
        case .date(let date): "date:\(date.timeIntervalSince1970)"
        case .binary(let data): "binary:\(hex(data))"
        case .uuid(let uuid): "uuid:\(uuid.uuidString)"
        case .uri(let url): "uri:\(quoted(url.absoluteString))"
        case .transformable(let data): "transformable:\(hex(data))"
        }
    }

    /// `text` in double quotes, with backslashes, quotes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    private static func hex(_ data: Data) -> String {
        data.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
