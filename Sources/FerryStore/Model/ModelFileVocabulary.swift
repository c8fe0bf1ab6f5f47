/// The words a model file may use: keys at each level, type names and delete rules, and the "did you mean"
/// suggestions for words that are not among them.
enum ModelFileVocabulary {
    /// Keys at the top of a model file.
    static let topLevelKeys = ["entities", "fetchRequestTemplates"]
    /// Keys of an entity.
    static let entityKeys = ["abstract", "parent", "attributes", "relationships", "uniquenessConstraints", "indexes"]
    /// Keys of an attribute in its long form.
    static let attributeKeys = [
        "type", "optional", "default", "transient", "indexed", "unique", "min", "max", "minLength", "maxLength",
        "regex", "allowsExternalStorage", "derivation", "transformer",
    ]
    /// Keys of a relationship in its long form.
    static let relationshipKeys = [
        "to", "inverse", "toMany", "ordered", "deleteRule", "optional", "minCount", "maxCount",
    ]
    /// Keys of a fetch request template.
    static let fetchRequestTemplateKeys = ["entity", "predicate"]

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

    /// `unknown key 'optinal'; did you mean 'optional'?`, or the full list of what was expected.
    static func unknown(_ what: String, _ found: String, expected: [String]) -> String {
        if let suggestion = suggestion(for: found, among: expected) {
            return "unknown \(what) '\(found)'; did you mean '\(suggestion)'?"
        }
        var seen: Set<String> = []
        let distinct = expected.filter { seen.insert($0).inserted }
        return "unknown \(what) '\(found)'; expected one of \(distinct.joined(separator: ", "))"
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

    /// The candidate `word` was most likely meant to be: one that differs only in case, or by at most two
    /// edits (one for short words); `nil` when nothing is close.
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        if let sameLetters = candidates.first(where: { $0.lowercased() == word.lowercased() }) {
            return sameLetters
        }
        let limit = word.count <= 4 ? 1 : 2
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            if distance <= limit && distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// Edits (insertions, deletions, substitutions and swaps of neighbours) that turn `a` into `b`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        // Three rows of the optimal-string-alignment table are enough.
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
