import ArgumentParser
import FerryPipeline
import Foundation
import FerryStore

/// `ferry inspect`: what a store holds, from one snapshot.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's entities with their row counts, its latest runs, history and blob files.",
        discussion: """
            Everything is read from one snapshot of the store, so the numbers agree with each other even while an \
            import runs. Runs are the latest 10 of the run ledger (ferry_runs): each `ferry run`, each of its \
            steps and each `ferry import`, with how it ended (a run whose process died is marked killed by the \
            next one); history is the latest token and the number of transactions kept (when the store records \
            persistent history); model versions are every model the store has had (ferry_model_history: created, \
            then one per migration); blobs are the files in <store>-blobs/.

            Examples:
              ferry inspect --store catalog.sqlite
              ferry inspect --store catalog.sqlite --json | jq '.entities[] | select(.rows == 0)'
            """
    )

    @OptionGroup var location: StoreOptions

    @Flag(help: "Print JSON instead of a table.")
    var json = false


    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap()
        let inspection = try await reportingFailures { () async throws -> StoreInspection in
            try await location.reading(logger: logger) { session in
                try await StoreInspection.read(session.container.persistentStore, path: location.store)
            }
        }
        print(json ? inspection.jsonText : Self.table(inspection), terminator: "")
    }

    /// The human form.
    static func table(_ inspection: StoreInspection) -> String {
        var text = "Store \(inspection.store)\n\nEntities\n"
        let width = max(inspection.entities.map(\.name.count).max() ?? 0, 6)
        for entity in inspection.entities {
            text += "  " + entity.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(entity.rows)\n"
        }
        text += "\nRuns (latest first)\n"
        if inspection.runs.isEmpty { text += "  none\n" }
        for run in inspection.runs {
            let counts = run.counts.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                .joined(separator: ", ")
            text += "  #\(run.id) \(run.pipeline) \(run.status) \(run.startedAt)"
            if let seconds = run.seconds { text += String(format: " %.1f s", seconds) }
            text += counts.isEmpty ? "\n" : " (\(counts))\n"
        }
        text += "\nHistory\n"
        if let history = inspection.history {
            text += "  latest token \(history.latestToken.map(String.init) ?? "none"), "
            text += "\(history.transactions) transactions kept\n"
        } else {
            text += "  not recorded\n"
        }
        text += "\nModel versions\n"
        if inspection.modelVersions.isEmpty { text += "  none recorded\n" }
        for version in inspection.modelVersions {
            text += "  v\(version.version) \(version.hash.prefix(12)) \(version.kind) \(version.appliedAt) by \(version.appliedBy)\n"
        }
        text +=
            "\nBlobs\n  \(inspection.blobs.files) files, \(inspection.blobs.bytes) bytes in \(inspection.blobs.folder)\n"
        return text
    }
}
