import Testing

@testable import FerryStore

/// Loading model files in tests, with diagnostics compared as the exact lines a user would read.
enum ModelFileFixture {
    /// The path diagnostics name.
    static let path = "Pipelines/test.model.yml"

    /// The lines of the ``ModelError`` that loading `yaml` throws; records an issue when it loads.
    static func errors(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        thrown(yaml, sourceLocation: sourceLocation)?.allErrors.map(\.description) ?? []
    }

    /// The ``ModelError`` that loading `yaml` throws; records an issue when it loads or throws something else.
    static func thrown(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> ModelError? {
        thrown(by: { try ModelFile(yaml: yaml, path: path) }, sourceLocation: sourceLocation)
    }

    /// The ``ModelError`` that `load` throws, whatever the model file's format; records an issue when it loads or
    /// throws something else.
    static func thrown(by load: () throws -> ModelFile, sourceLocation: SourceLocation = #_sourceLocation)
        -> ModelError?
    {
        do {
            _ = try load()
            Issue.record("the model loaded without errors", sourceLocation: sourceLocation)
        } catch let error as ModelError {
            return error
        } catch {
            Issue.record("expected a ModelError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// The warnings of a model that loads.
    static func warnings(_ yaml: String) throws -> [String] {
        try ModelFile(yaml: yaml, path: path).warnings.map(\.description)
    }
}
