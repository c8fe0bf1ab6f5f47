import ArgumentParser
import FerryPipeline
import FerryStore
import Foundation

/// `ferry prune`: bounds what a store keeps about its past (history, rejects, runs).
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete old history, rejected records and runs that a store keeps, so a nightly store stays bounded.",
        discussion: """
            Every run adds a row to the run ledger, its rejected records and, when the store records history, one \
            transaction per chunk. prune deletes what is older than you need: the data itself is never touched. \
            Each pipeline's latest run is always kept, so --resume and incremental exports still work. A DATE is \
            a day (2026-11-01), a date and time (2026-11-01T02:30:00Z), or a number of days ago (30d). A \
            consumer whose history token was pruned is told to fetch the current state again.

            Examples:
              ferry prune --store catalog.sqlite --history-before 30d --runs-keep 100
              ferry prune --store catalog.sqlite --runs-keep 30 --json
            """
    )

    @Option(help: "The store file.")
    var store: String

    @Option(help: ArgumentHelp("Delete history transactions recorded before DATE.", valueName: "DATE"))
    var historyBefore: PruneDate?

    @Option(help: ArgumentHelp("Delete rejected records of runs started before DATE.", valueName: "DATE"))
    var rejectsBefore: PruneDate?

    @Option(help: "Keep only the latest N runs in the ledger (with their rejects), besides each pipeline's latest.")
    var runsKeep: Int?

    @Flag(help: "Print what was deleted as JSON.")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if historyBefore == nil && rejectsBefore == nil && runsKeep == nil {
            throw ValidationError("say what to prune: --history-before, --rejects-before or --runs-keep")
        }
        if let runsKeep, runsKeep < 0 { throw ValidationError("--runs-keep must be 0 or more") }
    }

    /// What was deleted, as printed.
    struct Pruned: Encodable {
        var historyTransactions = 0
        var rejects = 0
        var runs = 0

        enum CodingKeys: String, CodingKey {
            case historyTransactions = "history_transactions"
            case rejects, runs
        }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let pruned = try await reportingFailures { () async throws -> Pruned in
            let session = try await BulkSession.open(storePath: store, createsStore: false, logger: logger)
            return try await session.closing { session in
                let persistentStore = session.container.persistentStore
                var pruned = Pruned()
                if let historyBefore {
                    pruned.historyTransactions = try await persistentStore.deleteHistory(recordedBefore: historyBefore.date)
                }
                if runsKeep != nil || rejectsBefore != nil {
                    let ledger = try await RunLedger(store: persistentStore)
                    let result = try await ledger.prune(keepingRuns: runsKeep, rejectsBefore: rejectsBefore?.date)
                    pruned.rejects = result.rejects
                    pruned.runs = result.runs
                }
                return pruned
            }
        }
        if json {
            print(RunReport.json(pruned), terminator: "")
        } else if !logging.quiet {
            printError(
                "pruned \(counted(pruned.historyTransactions, "history transaction", "history transactions")), "
                    + "\(counted(pruned.rejects, "rejected record", "rejected records")), "
                    + "\(counted(pruned.runs, "run", "runs"))")
        }
    }
}

/// A cut-off date as `ferry prune` takes it: `2026-11-01`, `2026-11-01T02:30:00Z`, or `30d` (days before now).
struct PruneDate: ExpressibleByArgument {
    let date: Date

    init?(argument: String) {
        if argument.hasSuffix("d"), let days = Int(argument.dropLast()), days >= 0 {
            date = Date().addingTimeInterval(-Double(days) * 86_400)
        } else if let instant = try? Date(argument, strategy: .iso8601) {
            date = instant
        } else if let day = try? Date(argument, strategy: Date.ISO8601FormatStyle().year().month().day()) {
            date = day
        } else {
            return nil
        }
    }
}
