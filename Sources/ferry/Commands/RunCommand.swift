import ArgumentParser
import FerryPipeline
import FerryStore
import Foundation

/// `ferry run PIPELINE`: runs a pipeline file's steps on its store.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline file: imports, batch updates and deletes, exports and snapshots, in order.",
        discussion: """
            The pipeline file (YAML) names the store, its model and the steps; see Pipelines/demo.yml and the \
            README. One run at a time per store: a second one exits 75 naming the holder. Each import chunk \
            commits with its checkpoint; after a crash or Ctrl-C, --resume continues each unfinished import \
            where it stopped, and re-running finished steps changes nothing.

            Examples:
              ferry run Pipelines/demo.yml
              ferry run Pipelines/nightly.yml --json > report.json
              ferry run Pipelines/nightly.yml --resume --log-level info
              ferry run Pipelines/nightly.yml --dry-run      # what would change, nothing kept

            A crontab line (02:30 every night; exit 75 means another run still holds the store):
              30 2 * * *  cd /srv/ferry && ferry run Pipelines/nightly.yml --quiet >> /var/log/ferry.log 2>&1
            """
    )

    @Argument(help: "The pipeline file.")
    var pipeline: String

    @Option(help: "Use this store file instead of the pipeline's.")
    var store: String?

    @Flag(help: "Continue each import step's unfinished run after its last committed chunk.")
    var resume = false

    @Flag(help: "Run every step on a copy of the store, report what would change, and keep nothing.")
    var dryRun = false

    @Flag(help: "Print the report as JSON on standard output.")
    var json = false

    @OptionGroup var durability: SyncOption

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap()
        let stop = SignalStop.install()
        // What ran before a failure, for --json.
        var partial: PipelineReport?
        let report = try await reportingFailures(
            { () async throws -> PipelineReport in
                var file = try PipelineFileParser.parse(contentsOf: pipeline)
                if let store { file.store = store }
                var settings = StoreSettings()
                settings.synchronous = durability.synchronous
                let progress = ProgressLine(quiet: logging.quiet)
                defer { progress.clear() }
                do {
                    return try await BulkSession.run(
                        file, settings: settings, dryRun: dryRun, resume: resume, stop: stop, logger: logger
                    ) { progress.update($0) }
                } catch let error as PipelineRunError {
                    progress.clear()
                    if !logging.quiet { printError(error.report.table) }
                    partial = error.report
                    throw error.underlying
                }
            },
            failed: { error, code in
                if json { FailureReport(error, code, step: partial?.failedStep, report: partial).print() }
            })
        if json {
            print(RunReport.json(report), terminator: "")
        } else if !logging.quiet {
            printError((dryRun ? "dry run, nothing kept: " : "") + report.table)
        }
    }
}
