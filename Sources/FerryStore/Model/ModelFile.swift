import Foundation
import Yams

/// A model loaded from a YAML model file, with the warnings its validation raised.
///
/// Use ``ManagedObjectModel/load(from:)`` when the warnings do not matter; use this type to show them (for
/// example in `ferry validate`). The format is described at ``ManagedObjectModel/load(from:)``.
public struct ModelFile: Sendable {
    /// The path the model was loaded from, as given (`<string>` or a caller's label for YAML text).
    public let path: String
    /// The validated model.
    public let model: ManagedObjectModel
    /// What validation found questionable but allowed, in file order.
    public let warnings: [ModelWarning]

    /// Loads and validates the model file at `path`.
    ///
    /// - Throws: ``ModelError`` with code ``ModelError/Code/fileNotFound`` or ``ModelError/Code/unreadableFile``
    ///   when the file cannot be read; otherwise as ``init(yaml:path:)``.
    public init(contentsOf path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ModelError(.fileNotFound, "no such model file", file: path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ModelError(.unreadableFile, "cannot read the model file", file: path)
        }
        guard let yaml = String(data: data, encoding: .utf8) else {
            throw ModelError(.unreadableFile, "the model file is not UTF-8 text", file: path)
        }
        try self.init(yaml: yaml, path: path)
    }

    /// Parses and validates a model written in YAML.
    ///
    /// - Parameters:
    ///   - yaml: the model file's text.
    ///   - path: the name diagnostics give the text.
    /// - Throws: ``ModelError`` gathering every problem found (code ``ModelError/Code/multipleErrors`` when there
    ///   are several), or a single ``ModelError/Code/invalidYAML`` error when the text is not well-formed YAML.
    public init(yaml: String, path: String = "<string>") throws {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw Self.modelError(from: error, yaml: yaml, path: path)
        }
        var parser = ModelFileParser(file: path)
        let model = parser.parse(root)
        var validator = ModelValidator(model: model, sourceMap: parser.sourceMap, file: path)
        validator.run()
        let errors = ModelError.inFileOrder(parser.errors + validator.errors)
        guard errors.isEmpty else { throw ModelError(gathering: errors, file: path) }
        self.path = path
        self.model = model
        self.warnings = validator.warnings.enumerated()
            .sorted { ($0.element.line ?? Int.max, $0.offset) < ($1.element.line ?? Int.max, $1.offset) }
            .map(\.element)
    }

    /// A YAML syntax error as a model error at the same line.
    static func modelError(from error: YamlError, yaml: String, path: String) -> ModelError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let during = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
            return ModelError(
                .invalidYAML, "not valid YAML: \(problem)\(during)", file: path, line: mark.line, column: mark.column)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let key = duplicates.first ?? ""
            let first = context.mark
            let second = YAMLText(yaml).lineOfRepeatedKey(key, after: first)
            let message =
                second == nil
                ? "'\(key)' appears twice in one mapping; each name may appear once"
                : "'\(key)' appears twice in one mapping (first at line \(first.line)); each name may appear once"
            return ModelError(.duplicateName, message, file: path, line: second ?? first.line)
        case .reader(let problem, _, _, _):
            return ModelError(.unreadableFile, "not readable as YAML: \(problem)", file: path)
        default:
            return ModelError(.invalidYAML, "not valid YAML: \(error)", file: path)
        }
    }
}

/// A model file's text, for finding what Yams' errors do not point at.
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
