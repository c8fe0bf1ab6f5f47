/// A pipeline file that cannot run, with every problem found (exit 78; 66 when every problem is a missing input).
public struct PipelineFileError: Error, Sendable, CustomStringConvertible {
    /// The problems, in file order.
    public var issues: [PipelineIssue]

    /// An error gathering `issues`.
    public init(issues: [PipelineIssue]) {
        self.issues = issues
    }

    /// Whether every problem is a missing input: the file itself is valid, its inputs are not there yet.
    public var isMissingInputOnly: Bool { !issues.isEmpty && issues.allSatisfy(\.isMissingInput) }

    public var description: String {
        issues.count == 1
            ? issues[0].description
            : "\(issues.count) problems:\n" + issues.map { "  " + $0.description }.joined(separator: "\n")
    }
}
