import ArgumentParser
import FerryPipeline
import FerryStore
import Foundation

/// `ferry migrate`: moves a store to a new model version in place, planned and checked first.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a new model: inferred steps, planned and checked against the data first.",
        discussion: """
            The store's model (the one it keeps) is compared with --model: renamed elements (renamingIdentifier), \
            added and removed attributes, entities, relationships, constraints and indexes, optional/required \
            changes and widening type changes become SQL steps run in place. --plan prints them with their cost \
            (instant DDL, one pass, table rebuild, index build) and the checks of the data, and changes nothing. \
            A versioned model folder (NAME.model/ with v1.yml, v2.yml…) is walked version by version from the one \
            the store is at, with the stages each version's migration file declares. An Xcode .xcdatamodeld is \
            walked the same way: its versions in name order, numbers compared as numbers (Catalog, Catalog 2, … \
            Catalog 10), up to the current one, which must be the last.

            Exit status: 0 when the migration ran (or, with --plan, can run); 65 when data block it (the plan says \
            which rows and how to fix them); 78 when a change cannot be inferred, or it removes data without \
            --allow-destructive; 75 when another run holds the store.

            A string attribute turned date converts each text in the first --date-format that reads it (iso8601 \
            when none is given; as an import's dateFormats: iso8601, epochSeconds, epochMilliseconds or a pattern \
            such as dd/MM/yyyy). Text that none reads is a violation --on-violation decides; --plan shows the \
            formats, how many values fail, the first of them and what was expected.

            Examples:
              ferry migrate --store catalog.sqlite --model catalog.model --plan
              ferry migrate --store catalog.sqlite --model catalog-v2.yml --on-violation keep-first --allow-destructive
              ferry migrate --store catalog.sqlite --model catalog.model --plan --json | jq '.steps[].cost'
              ferry migrate --store catalog.sqlite --model App/Catalog.xcdatamodeld
              ferry migrate --store catalog.sqlite --model catalog-v3.yml --date-format dd/MM/yyyy \
                --date-format iso8601 --on-violation reject --allow-destructive
            """
    )

    @Option(help: "The store file.")
    var store: String

    @Option(
        help: """
            The new model: a YAML model file, a versioned model folder (NAME.model/ with v1.yml, v2.yml…), or an \
            Xcode .xcdatamodeld.
            """)
    var model: String

    @Flag(help: "Print the plan and change nothing.")
    var plan = false

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Allow steps that remove data (an attribute, entity or relationship holding values, rejected rows).")
    var allowDestructive = false

    @Option(
        help: ArgumentHelp(
            "What happens to rows that break a new rule: fail, reject, default, keep-first or keep-last.",
            valueName: "policy"))
    var onViolation = "fail"

    @Option(
        name: .customLong("date-format"),
        help: ArgumentHelp(
            """
            A way a text attribute turned date may be written: iso8601, epochSeconds, epochMilliseconds or a \
            pattern (dd/MM/yyyy). Repeat it to try several, in order (default: iso8601).
            """, valueName: "format"))
    var dateFormats: [String] = []

    func validate() throws {
        guard ViolationPolicy(rawValue: onViolation) != nil else {
            throw ValidationError(
                "--on-violation must be one of " + ViolationPolicy.allCases.map(\.rawValue).joined(separator: ", "))
        }
        _ = try parsedDateFormats()
    }

    /// The `--date-format` values, or `[.iso8601]` when none is given.
    private func parsedDateFormats() throws -> [DateFormat] {
        do {
            return try dateFormats.isEmpty ? [.iso8601] : dateFormats.map(DateFormat.init(parsing:))
        } catch {
            throw ValidationError("--date-format: \(error)")
        }
    }

    @Option(help: ArgumentHelp("Rows per transaction when a table is copied.", visibility: .hidden))
    var chunkRows = 100_000

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap()
        let outcome = try await reportingFailures { () async throws -> StoreMigration.Outcome in
            let lock = try StoreLock(storePath: store)
            defer { withExtendedLifetime(lock) {} }
            var migration = StoreMigration(
                storePath: store, modelPath: model, policy: ViolationPolicy(rawValue: onViolation) ?? .fail, appliedBy: "ferry migrate", logger: logger)
            migration.chunkRows = max(chunkRows, 1)
            migration.dateFormats = try parsedDateFormats()
            if plan { return try await migration.plans() }
            return try await migration.run(allowsDestructiveChanges: allowDestructive)
        }
        if json {
            print(outcome.json, terminator: "\n")
        } else if !logging.quiet || plan {
            print(outcome.text, terminator: "\n")
        }
        if plan && outcome.isBlocked { throw FerryExitCode.dataError }
    }
}
