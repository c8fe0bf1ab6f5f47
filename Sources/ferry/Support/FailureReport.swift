import ArgumentParser
import FerryPipeline

/// What `--json` prints on standard output when a command fails, so that a wrapper reading the report learns why:
/// the error, its exit code, the pipeline step it failed at and the report of the steps that ran before it.
///
/// ```json
/// { "status": "failed", "error": "…", "exit_code": 65, "step": "products", "report": { "steps": [ … ] } }
/// ```
struct FailureReport: Encodable {
    var status = "failed"
    var error: String
    var exitCode: Int32
    var step: String?
    var report: PipelineReport?

    enum CodingKeys: String, CodingKey {
        case status, error, step, report
        case exitCode = "exit_code"
    }

    init(_ error: any Error, _ code: ExitCode, step: String? = nil, report: PipelineReport? = nil) {
        self.error = String(describing: error)
        self.exitCode = code.rawValue
        self.step = step
        self.report = report
    }

    /// Prints the report on standard output.
    func print() {
        Swift.print(RunReport.json(self), terminator: "")
    }
}
