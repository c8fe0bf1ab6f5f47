/// One problem in a pipeline file: where it is (file, line, key path) and what would be valid.
public struct PipelineIssue: Sendable, Hashable, CustomStringConvertible {
    /// The pipeline file.
    public var file: String
    /// The line, from 1, when known.
    public var line: Int?
    /// The key path, such as `steps[2].import.mergePolicy`.
    public var keyPath: String
    /// What is wrong and what would be valid.
    public var message: String
    /// Whether the problem is an input file that is not there (a pipeline that is otherwise valid exits 66, as
    /// `ferry import` does for a missing file, rather than 78).
    public var isMissingInput = false

    /// An issue at `keyPath` of `file`.
    public init(file: String, line: Int?, keyPath: String, message: String) {
        self.file = file
        self.line = line
        self.keyPath = keyPath
        self.message = message
    }

    /// `Pipelines/demo.yml:12: steps[1].import.mode: expected context or batch, found 'fast'`.
    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(keyPath.isEmpty ? "" : keyPath + ": ")\(message)"
    }
}
