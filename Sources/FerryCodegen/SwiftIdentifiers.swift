/// How model names become Swift names in generated code: escaped keywords, names that would clash with
/// ``FerryStore/ManagedObject``'s own members, and the camel-cased names of helpers and parameters.
enum SwiftIdentifiers {
    /// Swift's keywords that need backticks as member names (`default`, `class`…).
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
    ]

    /// Public members of `ManagedObject` (and of `Hashable`, `CustomStringConvertible`, `EntityClass`) that a
    /// property of the same name would clash with, or hide from the generated accessors that call them; such
    /// properties get the suffix `Value` (`description` → `descriptionValue`).
    static let managedObjectMembers: Set<String> = [
        "objectID", "managedObjectContext", "entity", "isFault", "isInserted", "isDeleted", "isUpdated", "hasChanges",
        "changedKeys", "description", "hashValue", "entityName", "changedValues", "committedValues", "value",
        "setValue", "primitiveValue", "setPrimitiveValue", "validateValue", "object", "objects", "objectIDs",
        "setObject", "setObjects", "add", "remove", "hasFault", "transformable", "setTransformable", "awakeFromInsert",
        "awakeFromFetch", "willSave", "didSave", "prepareForDeletion", "validateForInsert", "validateForUpdate",
        "validateForDelete", "hash", "insert", "fetchRequest",
    ]

    /// The Swift property name of the model property `name`.
    static func propertyName(_ name: String) -> String {
        if managedObjectMembers.contains(name) { return name + "Value" }
        return escaped(name)
    }

    /// `name`, in backticks when it is a keyword.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// `name` with its first letter upper-cased, for helper names: `items` → `Items` (`addToItems`).
    static func capitalized(_ name: String) -> String {
        guard let first = name.first else { return name }
        return first.uppercased() + name.dropFirst()
    }

    /// A template variable as a parameter name: `MIN_PRICE` → `minPrice`, `since` → `since`.
    static func parameterName(_ variable: String) -> String {
        let words = variable.split(separator: "_").filter { !$0.isEmpty }
        guard !words.isEmpty else { return "value" }
        let allCaps = variable.uppercased() == variable
        var name = ""
        for (index, word) in words.enumerated() {
            let text = allCaps ? word.lowercased() : String(word)
            name += index == 0 ? lowercasedFirst(text) : capitalized(text)
        }
        if let first = name.unicodeScalars.first, ("0"..."9").contains(first) { name = "value" + name }
        return escaped(name)
    }

    /// The type name for a model file at `path`: `Pipelines/catalog.model.yml` → `CatalogModel`,
    /// `App/Catalog.xcdatamodeld` → `CatalogModel`.
    static func modelTypeName(forModelAt path: String) -> String {
        var base = path.split(separator: "/").last.map(String.init) ?? path
        for suffix in [".yml", ".yaml", ".xcdatamodeld", ".xcdatamodel", ".ferrymodel", ".model"]
        where base.hasSuffix(suffix) {
            base.removeLast(suffix.count)
        }
        let words = base.split { !($0.isLetter || $0.isNumber) || !$0.isASCII }
        var name = words.map { capitalized(String($0)) }.joined()
        if name.isEmpty || name.first?.isNumber == true { name = "Ferry" + name }
        return name.hasSuffix("Model") ? name : name + "Model"
    }

    private static func lowercasedFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
