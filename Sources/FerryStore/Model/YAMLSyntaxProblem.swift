package import Yams

/// What is wrong with a YAML text that does not parse, and where: one reading of Yams' errors for every file
/// Ferry reads (model files and pipeline files), so both point at the same line for the same mistake.
package struct YAMLSyntaxProblem: Sendable {
    /// The kind of mistake.
    package enum Kind: Sendable {
        /// Not YAML at all at `line`.
        case syntax
        /// A key written twice in one mapping; `line` is the second one when it can be told.
        case duplicateKey
        /// Not readable text.
        case unreadable
    }

    package let kind: Kind
    /// What is wrong, in words.
    package let message: String
    /// The line, from 1, when known.
    package let line: Int?
    /// The column, from 1, when known.
    package let column: Int?

    /// The problem `error` reports for `yaml`.
    package init(_ error: YamlError, yaml: String) {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let during = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
            self.init(.syntax, "not valid YAML: \(problem)\(during)", line: mark.line, column: mark.column)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let key = duplicates.first ?? ""
            let first = context.mark
            let second = YAMLText(yaml).lineOfRepeatedKey(key, after: first)
            let message =
                second == nil
                ? "'\(key)' appears twice in one mapping; each name may appear once"
                : "'\(key)' appears twice in one mapping (first at line \(first.line)); each name may appear once"
            self.init(.duplicateKey, message, line: second ?? first.line, column: nil)
        case .reader(let problem, _, _, _):
            self.init(.unreadable, "not readable as YAML: \(problem)", line: nil, column: nil)
        default:
            self.init(.syntax, "not valid YAML: \(error)", line: nil, column: nil)
        }
    }

    private init(_ kind: Kind, _ message: String, line: Int?, column: Int?) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
    }
}

/// A YAML file's text, for finding what Yams' errors do not point at.
private struct YAMLText {
    let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The line of the second `key:` in the mapping whose first `key:` is at `first`: later in the same flow
    /// mapping, or on a later line at the same indentation. `nil` when it cannot be told.
    func lineOfRepeatedKey(_ key: String, after first: Mark) -> Int? {
        guard first.line >= 1, first.line <= lines.count else { return nil }
        let firstLine = Array(lines[first.line - 1].unicodeScalars)
        let start = first.column - 1 + key.unicodeScalars.count
        if start < firstLine.count, Self.holdsKey(key, in: firstLine, from: start, separators: ",{ ") {
            return first.line
        }
        for number in stride(from: first.line + 1, through: lines.count, by: 1) {
            let scalars = Array(lines[number - 1].unicodeScalars)
            let indent = scalars.prefix { $0 == " " }.count
            let firstVisible = scalars.dropFirst(indent).first
            if indent < first.column - 1, let firstVisible, firstVisible != "#" {
                return nil  // the mapping ended
            }
            if indent == first.column - 1, Self.startsWithKey(key, scalars[indent...]) { return number }
        }
        return nil
    }

    /// Whether `key:` occurs in `scalars` after `start`, right after one of `separators`.
    private static func holdsKey(_ key: String, in scalars: [Unicode.Scalar], from start: Int, separators: String)
        -> Bool
    {
        for index in start..<scalars.count where separators.unicodeScalars.contains(scalars[index]) {
            if startsWithKey(key, scalars[(index + 1)...].drop { $0 == " " }) { return true }
        }
        return false
    }

    /// Whether `scalars` begins with `key`, optionally quoted, then optional spaces and a colon.
    private static func startsWithKey(_ key: String, _ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        for spelling in [key, "\"\(key)\"", "'\(key)'"] {
            let keyScalars = Array(spelling.unicodeScalars)
            guard scalars.starts(with: keyScalars) else { continue }
            if scalars.dropFirst(keyScalars.count).drop(while: { $0 == " " }).first == ":" { return true }
        }
        return false
    }
}
