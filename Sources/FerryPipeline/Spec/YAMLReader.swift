import FerryStore
import Yams

/// Reads typed values out of a YAML tree, noting each problem with its line and key path instead of stopping at
/// the first, so `ferry validate` can list them all.
struct YAMLReader {
    let file: String
    private(set) var issues: [PipelineIssue] = []

    init(file: String) {
        self.file = file
    }

    mutating func report(_ node: Node?, _ keyPath: String, _ message: String, isMissingInput: Bool = false) {
        var issue = PipelineIssue(file: file, line: node.map { $0.mark?.line ?? 0 }, keyPath: keyPath, message: message)
        issue.isMissingInput = isMissingInput
        issues.append(issue)
    }

    /// The pairs of a mapping, after checking its keys against `allowed` (each unknown key is an issue naming the
    /// valid ones); `nil` (and an issue) when `node` is not a mapping.
    mutating func mapping(_ node: Node, _ keyPath: String, allowed: [String]? = nil) -> [(
        key: String, keyNode: Node, value: Node
    )]? {
        guard case .mapping(let mapping) = node else {
            report(
                node, keyPath, "expected a mapping (key: value lines)\(allowed.map { " with " + Self.list($0) } ?? "")")
            return nil
        }
        var pairs: [(key: String, keyNode: Node, value: Node)] = []
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else {
                report(keyNode, keyPath, "a key must be text")
                continue
            }
            if let allowed, !allowed.contains(key) {
                report(keyNode, Self.join(keyPath, key), NameSuggestion.unknown("key", key, expected: allowed))
                continue
            }
            pairs.append((key, keyNode, value))
        }
        return pairs
    }

    mutating func string(_ node: Node, _ keyPath: String) -> String? {
        guard case .scalar(let scalar) = node else {
            report(node, keyPath, "expected text")
            return nil
        }
        return scalar.string
    }

    mutating func int(_ node: Node, _ keyPath: String, minimum: Int = 0) -> Int? {
        guard let value = node.int, value >= minimum else {
            report(node, keyPath, "expected a whole number of at least \(minimum), found '\(node.string ?? "…")'")
            return nil
        }
        return value
    }

    mutating func bool(_ node: Node, _ keyPath: String) -> Bool? {
        guard let value = node.bool else {
            report(node, keyPath, "expected true or false, found '\(node.string ?? "…")'")
            return nil
        }
        return value
    }

    mutating func double(_ node: Node, _ keyPath: String) -> Double? {
        let number: Double? = if let float = node.float { Double(float) } else { node.int.map { Double($0) } }
        guard let value = number else {
            report(node, keyPath, "expected a number, found '\(node.string ?? "…")'")
            return nil
        }
        return value
    }

    /// One text or a list of texts.
    mutating func strings(_ node: Node, _ keyPath: String) -> [String]? {
        switch node {
        case .scalar(let scalar): return [scalar.string]
        case .sequence(let sequence):
            var values: [String] = []
            for (index, element) in sequence.enumerated() {
                if let text = string(element, "\(keyPath)[\(index)]") { values.append(text) }
            }
            return values
        default:
            report(node, keyPath, "expected text or a list of texts")
            return nil
        }
    }

    /// One of `choices`, spelled as written there.
    mutating func choice<Value>(_ node: Node, _ keyPath: String, _ choices: [(String, Value)]) -> Value? {
        guard let text = string(node, keyPath) else { return nil }
        if let found = choices.first(where: { $0.0 == text }) { return found.1 }
        let spellings = choices.map(\.0)
        let suggestion = NameSuggestion.suggestion(for: text, among: spellings).map { "; did you mean '\($0)'?" }
        report(node, keyPath, "expected \(Self.list(spellings)), found '\(text)'\(suggestion ?? "")")
        return nil
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    static func list(_ words: [String]) -> String {
        switch words.count {
        case 0: return "nothing"
        case 1: return words[0]
        default: return words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
        }
    }
}
