import Foundation

/// What a pipeline run did, step by step: printed as a table, or as JSON with `--json`.
public struct PipelineReport: Sendable, Codable {
    /// One step's outcome.
    public struct Step: Sendable, Codable {
        public var name: String
        public var kind: String
        public var entity: String?
        public var counts: StepCounts
        public var seconds: Double
        /// Files the step wrote: exports, manifests, snapshots, rejects.
        public var outputs: [String]
        /// The step's run in the ledger.
        public var run: Int64?
        /// Whether an import step continued an interrupted run.
        public var resumed: Bool?
        /// An import step's input columns that no attribute or relationship reads (CSV, TSV).
        public var unreadColumns: [String]?
        /// How many of ``unreadColumns`` were new to the entity and ignored (`schema: discard-columns`).
        public var discardedColumns: Int?
        /// Whether an import step appended its records (an entity without a uniqueness constraint).
        public var appended: Bool?
        /// Whether an import step's records replaced the entity's rows (`replace: true`).
        public var replaced: Bool?
    }

    /// The pipeline file.
    public var pipeline: String
    /// The store file.
    public var store: String
    /// The run's number in the store's ledger (`{run}` in output paths).
    public var run: Int64?
    public var steps: [Step] = []
    public var seconds: Double = 0
    /// `succeeded`, or how the run ended.
    public var status: String = "succeeded"
    /// The step the run failed at, if it failed at one.
    public var failedStep: String?

    /// The report as a table for people, one line per step.
    public var table: String {
        var lines = ["\(pipeline) → \(store)"]
        for step in steps {
            let counts = step.counts
            var what: [String] = []
            if step.kind == "import" {
                what = [
                    "\(counts.read) read", "\(counts.inserted) inserted", "\(counts.updated) updated",
                    "\(counts.unchanged) unchanged",
                ]
                if counts.kept > 0 { what.append("\(counts.kept) kept") }
                what.append("\(counts.rejected) rejected")
                if counts.deleted > 0 { what.append("\(counts.deleted) deleted") }
                what += RunReport.linkParts(counts)
            } else if step.kind == "batchUpdate" {
                what = ["\(counts.updated) updated"]
            } else if step.kind == "batchDelete" {
                what = ["\(counts.deleted) deleted"]
            } else if step.kind == "export" {
                what = ["\(counts.read) rows"]
            }
            let time = String(format: "%.2f s", step.seconds)
            lines.append(
                "  \(step.name.padding(toLength: 22, withPad: " ", startingAt: 0)) "
                    + (what + [time]).joined(separator: " · ")
                    + RunReport.keylessNote(appended: step.appended, replaced: step.replaced))
            for output in step.outputs { lines.append("      → \(output)") }
            if let unread = step.unreadColumns {
                lines.append(
                    "      unread columns: " + unread.joined(separator: ", ")
                        + RunReport.discardedNote(step.discardedColumns, entity: step.entity))
            }
        }
        lines.append(String(format: "%@ in %.2f s", status, seconds))
        return lines.joined(separator: "\n")
    }
}
