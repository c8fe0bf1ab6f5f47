public import ArgumentParser
public import FerryPipeline
import Foundation

/// `ferry publish`: an entity's objects from a store into a PostgreSQL table, incrementally, each chunk exactly once.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish an entity's objects from a store into a PostgreSQL table, incrementally and exactly once.",
        discussion: """
            The store stays where records are validated, merged and recorded; PostgreSQL (or a compatible \
            distributed engine such as Citus) is where other services read them. The first publish of a table sends \
            every object; the next ones send only the objects inserted or updated since (from the store's \
            persistent history, so the store must record it: `history: true` in its pipeline), and delete the rows \
            of the objects deleted since.

            The table is created from the model when missing: a column per attribute (smallint, integer, bigint, \
            double precision, numeric, boolean, timestamptz, uuid, bytea or text), NOT NULL where the model says, \
            a unique index per uniqueness constraint, and a column per to-one relationship holding the \
            destination's natural key. An existing table whose columns do not fit is refused with every \
            difference named: Ferry never casts silently.

            Modes:
              upsert   (default) each chunk is copied into a temporary staging table and merged with \
            INSERT … ON CONFLICT (key) DO UPDATE, rewriting only rows whose values differ. Needs a uniqueness \
            constraint among the published columns.
              replace  a new table is filled, then swapped in for the old one in one transaction.
              append   rows are copied in as they are (COPY only), for entities that only grow.

            Exactly once: each chunk commits together with the publish's checkpoint, kept in PostgreSQL's table \
            ferry_publish_checkpoints. A killed publish (or one whose server went away, exit 74) resumes after its \
            last committed chunk when run again. Two publishes of one table exclude each other: the second exits 75. \
            A row PostgreSQL refuses (an invalid byte sequence, a number out of range) rolls its chunk back; the \
            chunk is sent again row by row, the refused rows go to --rejects with PostgreSQL's reason, and the \
            publish goes on until more than --max-rejects are refused (exit 65).

            Credentials follow libpq's rules: the URL's password, else PGPASSWORD, else the service named by \
            PGSERVICE, else ~/.pgpass. A password is never printed, logged or written to a report: messages show \
            the URL as postgresql://user:***@host/db. A wrong URL or password exits 74 with libpq's message.

            Examples:
              ferry publish --store catalog.sqlite --entity Product --to postgresql://ferry@db.internal/catalog
              ferry publish --store catalog.sqlite --entity Product --to "$DATABASE_URL" --table analytics.products
              ferry publish --store catalog.sqlite --entity Category --to "service=warehouse" --mode replace
              ferry publish --store events.sqlite --entity Event --to "$DATABASE_URL" --mode append --json
            """
    )

    @OptionGroup var location: StoreOptions

    @Option(help: "The entity to publish (its sub-entities' objects included).")
    var entity: String

    @Option(
        help: ArgumentHelp(
            "The PostgreSQL server: a URL (postgresql://user@host:5432/db) or libpq key=value pairs.",
            valueName: "url"))
    var to: String

    @Option(help: "The table, optionally schema-qualified (default: the entity's name in lower case).")
    var table: String?

    @Option(help: "upsert, replace or append.")
    var mode: PublishSpec.Mode = .upsert

    @Option(help: "The key paths to publish, comma-separated (default: every stored attribute and to-one key).")
    var fields: String?

    @OptionGroup var filter: PredicateOption

    @Option(help: "Rows per COPY and per PostgreSQL transaction (each committed with its checkpoint).")
    var chunkSize = 10_000

    @Option(help: "How many rows PostgreSQL may refuse before the publish stops.")
    var maxRejects = 0

    @Option(help: "A CSV file for the rows PostgreSQL refused, with its reasons.")
    var rejects: String?

    @Flag(help: "Print the counts as JSON on standard output.")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard chunkSize > 0 else { throw ValidationError("--chunk-size must be positive.") }
        guard maxRejects >= 0 else { throw ValidationError("--max-rejects cannot be negative.") }
        if let fields, fields.split(separator: ",").isEmpty {
            throw ValidationError("--fields names no field; write --fields sku,name.")
        }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let started = Date()
        let result = try await reportingFailures(
            { () async throws -> Publisher.Result in
                var spec = PublishSpec(entity: entity, to: to, table: table, mode: mode)
                spec.fields = fields.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                spec.predicate = filter.predicate
                spec.chunkSize = chunkSize
                spec.maxRejects = maxRejects
                spec.rejectsPath = rejects
                // Rows sent so far, after each chunk, on a terminal.
                let progress = ProgressLine(quiet: logging.quiet)
                defer { progress.clear() }
                let step = "publish \(entity)"
                progress.begin(step: step)
                // The run is recorded in the store's ledger.
                return try await location.reading(recordsInStore: true, logger: logger) {
                    try await $0.publish(spec) { progress.update(step: step, rows: $0) }
                }
            },
            failed: { error, code in if json { FailureReport(error, code).print() } })
        let seconds = Date().timeIntervalSince(started)
        if json {
            print(RunReport.json(PublishReport(result, mode: mode, seconds: seconds)), terminator: "")
        } else if !logging.quiet {
            let counts = result.counts
            var line = "published \(entity) to \(result.table): \(counts.read) sent · \(counts.inserted) inserted · "
            line += "\(counts.updated) updated · \(counts.unchanged) unchanged · \(counts.deleted) deleted · "
            line += "\(counts.rejected) rejected" + (rejects.map { " (\($0))" } ?? "")
            line += String(format: " · %.2f s", seconds)
            if result.resumed { line += " (resumed)" }
            if result.incremental { line += " (changes since the previous publish)" }
            printError(line)
        }
    }
}

extension PublishSpec.Mode: ExpressibleByArgument {}

/// What `ferry publish --json` prints.
struct PublishReport: Encodable {
    var status = "succeeded"
    var table: String
    var mode: String
    var sent: Int
    var inserted: Int
    var updated: Int
    var unchanged: Int
    var deleted: Int
    var rejected: Int
    var resumed: Bool
    var incremental: Bool
    var historyToken: Int64?
    var seconds: Double

    init(_ result: Publisher.Result, mode: PublishSpec.Mode, seconds: Double) {
        table = result.table
        self.mode = mode.rawValue
        sent = result.counts.read
        inserted = result.counts.inserted
        updated = result.counts.updated
        unchanged = result.counts.unchanged
        deleted = result.counts.deleted
        rejected = result.counts.rejected
        resumed = result.resumed
        incremental = result.incremental
        historyToken = result.historyToken
        self.seconds = seconds
    }

    enum CodingKeys: String, CodingKey {
        case status, table, mode, sent, inserted, updated, unchanged, deleted, rejected, resumed, incremental, seconds
        case historyToken = "history_token"
    }
}
