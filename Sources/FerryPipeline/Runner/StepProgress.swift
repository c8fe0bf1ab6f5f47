/// How far a pipeline's running step has come, as ``PipelineRunner/run(resume:stop:progress:)`` reports it.
public enum StepProgress: Sendable {
    /// An import step's input read so far and its counts; ``ImportProgress/step`` names the step.
    case importing(ImportProgress)
    /// How far the export step named `step` has come (a Parquet snapshot step's: `step: entity`, its rows).
    case exporting(step: String, ExportProgress)
    /// The publish step named `step` has sent `rows` rows, after each chunk.
    case publishing(step: String, rows: Int)
}
