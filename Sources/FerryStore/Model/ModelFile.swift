import Foundation
import Yams

/// A model loaded from a model file (YAML, or an Xcode `.xcdatamodeld`), with the warnings its validation raised.
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

    /// Loads and validates the model file at `path`: YAML, an Xcode model (an `.xcdatamodeld` folder, whose
    /// current version `.xccurrentversion` names, or one `.xcdatamodel` folder; see ``XcodeModelBundle``), or the
    /// current version of a versioned model folder (``VersionedModelFolder``).
    ///
    /// - Throws: ``ModelError`` with code ``ModelError/Code/fileNotFound`` or ``ModelError/Code/unreadableFile``
    ///   when the file cannot be read; otherwise as ``init(yaml:path:)``.
    public init(contentsOf path: String) throws {
        if XcodeModelBundle.isXcodeModel(path) {
            try self.init(xcodeModelAt: path)
            return
        }
        if VersionedModelFolder.isVersionedModel(path) {
            let current = try VersionedModelFolder(contentsOf: path).current
            try self.init(contentsOf: current.path)
            return
        }
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
        let problem = YAMLSyntaxProblem(error, yaml: yaml)
        let code: ModelError.Code =
            switch problem.kind {
            case .duplicateKey: .duplicateName
            case .unreadable: .unreadableFile
            case .syntax: .invalidYAML
            }
        return ModelError(code, problem.message, file: path, line: problem.line, column: problem.column)
    }
}
