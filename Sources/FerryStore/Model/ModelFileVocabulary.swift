/// The words a model file may use: keys at each level, type names and delete rules, and how an unknown one is
/// reported (with a "did you mean" from ``NameSuggestion``).
enum ModelFileVocabulary {
    /// Keys at the top of a model file.
    static let topLevelKeys = ["entities", "fetchRequestTemplates"]
    /// Keys of an entity.
    static let entityKeys = ["abstract", "parent", "attributes", "relationships", "uniquenessConstraints", "indexes",
        "renamingIdentifier", "fetchedProperties",
    ]
    /// Keys of an attribute in its long form.
    static let attributeKeys = [
        "type", "optional", "default", "transient", "indexed", "unique", "min", "max", "minLength", "maxLength",
        "regex", "allowsExternalStorage", "derivation", "transformer", "precision", "scale",
        "valueType", "renamingIdentifier",
    ]
    /// Keys of a relationship in its long form.
    static let relationshipKeys = [
        "to", "inverse", "toMany", "ordered", "deleteRule", "optional", "minCount", "maxCount", "renamingIdentifier",
    ]
    /// Keys of a fetch request template.
    static let fetchRequestTemplateKeys = ["entity", "predicate"]
    /// Keys of a fetched property.
    static let fetchedPropertyKeys = ["entity", "predicate"]

    /// Attribute type names, in the order error messages list them.
    static let typeNames = [
        "integer16", "integer32", "integer64", "double", "float", "decimal", "string", "boolean", "date", "binary",
        "uuid", "uri", "transformable",
    ]

    /// Delete rule names, in the order error messages list them.
    static let deleteRuleNames = DeleteRule.allCases.map(\.rawValue)

    /// The type named `name`, other than `transformable` (which needs its transformer); `nil` if unknown.
    static func simpleType(named name: String) -> AttributeType? {
        switch name {
        case "integer16": .integer16
        case "integer32": .integer32
        case "integer64": .integer64
        case "double": .double
        case "float": .float
        case "decimal": .decimal
        case "string": .string
        case "boolean": .boolean
        case "date": .date
        case "binary": .binary
        case "uuid": .uuid
        case "uri": .uri
        default: nil
        }
    }

    /// For a key that belongs elsewhere, what it applies to: `'toMany' applies to relationships, not attributes`.
    static func misplacedKeyMessage(_ key: String, allowed: [String]) -> String? {
        if allowed == attributeKeys && relationshipKeys.contains(key) {
            return "'\(key)' applies to relationships, not attributes"
        }
        if allowed == relationshipKeys && attributeKeys.contains(key) {
            return "'\(key)' applies to attributes, not relationships"
        }
        return nil
    }
}
