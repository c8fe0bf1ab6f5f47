import ArgumentParser
import FerryIO
import FerryPipeline
import FerryStore
import Foundation

/// `ferry export`: an entity's objects from one consistent snapshot of a store, to CSV, TSV, NDJSON, JSON or Parquet.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export an entity's objects from a consistent snapshot of a store to CSV, TSV, NDJSON, JSON or Parquet.",
        discussion: """
            The whole export reads one snapshot of the store: imports may commit meanwhile, and none of their rows \
            appear. Rows stream from the store to the output, so memory stays flat however many there are. The \
            output appears only once complete, with <output>.manifest.json beside it (entity, predicate, fields, \
            rows, SHA-256 of the file, the store's history token and the successful runs it reflects). Standard \
            output gets no manifest. The store is opened read-only and left as it is, so one on a read-only mount \
            or in another user's folder exports too (but for --since-last, which records its position in the store).

            Fields are the entity's stored attributes unless --fields names key paths, which may go through to-one \
            relationships (category.name). Values: numbers as numbers, decimals exactly, booleans true/false, \
            dates ISO 8601 in UTC (2026-01-05T09:00:00Z), binary as Base64; nil is an empty CSV field or JSON null.

            Parquet (--format parquet, or an output ending in .parquet) keeps the model's types: strings and URIs \
            STRING, integers INT32 with INT(16|32) or INT64, double, float, boolean, dates TIMESTAMP(MICROS, UTC), \
            UUIDs FIXED_LEN_BYTE_ARRAY(16) UUID (STRING of their text with --uuids-as-text, for Apache Spark, which \
            refuses the UUID type), binary BYTE_ARRAY, decimals DECIMAL(precision, scale) when the model \
            declares them, else STRING with their exact text; optional attributes and key paths through relationships \
            are nullable columns. Pages are compressed with --compression (zstd by default, at --zstd-level 1; up to \
            22 is smaller and slower); a row group holds up to --row-group-rows rows (1048576) and --row-group-mib \
            MiB of pages before compression (128). --partition-by category.name makes the output a hive-partitioned \
            dataset folder (category.name=Tea/part-00000.parquet, values escaped as Hive escapes them, nulls in \
            __HIVE_DEFAULT_PARTITION__) that appears complete, with a _SUCCESS marker, or not at all; its manifest \
            lists every file with its rows, bytes and SHA-256.

            --since-last NAME exports only the objects inserted or updated since the previous export of that name \
            (everything the first time), from the store's persistent history; the manifest lists the objects \
            deleted since under "deleted" (their unique keys). The store must record history.

            Examples:
              ferry export --store catalog.sqlite --entity Product --output products.csv
              ferry export --store catalog.sqlite --entity Product --where 'price > 10' --sort category.name,-price
              ferry export --store catalog.sqlite --entity Product --fields sku,name,category.name --format ndjson
              ferry export --store catalog.sqlite --entity Product --since-last feed --output out/products.ndjson
              ferry export --store catalog.sqlite --entity Product --output out/products.parquet
              ferry export --store catalog.sqlite --entity Product --partition-by category.name --output out/products \
                --format parquet
            """
    )

    @OptionGroup var location: StoreOptions

    @Option(help: "The entity to export (its sub-entities' objects included).")
    var entity: String

    @OptionGroup var filter: PredicateOption

    @Option(
        parsing: .unconditional, help: "Sort keys, comma-separated; - before a key sorts it descending: sku,-price.")
    var sort: String?

    @Option(help: "The key paths to write, comma-separated (default: every stored attribute).")
    var fields: String?

    @Option(
        help: "The output format: csv, tsv, ndjson, json or parquet (default: from --output's extension; csv for -).")
    var format: RecordFormat?

    @OptionGroup(title: "Parquet") var parquet: ParquetOptions

    @Option(
        help: ArgumentHelp(
            "Partition a Parquet export by these key paths, comma-separated: the output is then a folder of "
                + "name=value/part-00000.parquet files with a _SUCCESS marker.",
            valueName: "key-paths"))
    var partitionBy: String?

    @Option(
        help: ArgumentHelp(
            "Rows between progress reports (shown on a terminal: rows written and the rate, then a partitioned "
                + "export's files written); memory does not depend on it."))
    var fetchBatchSize = 1000

    @Option(name: .shortAndLong, help: "The output file, or - for standard output.")
    var output = "-"

    @Option(help: "Export only what changed since the previous export of this name.")
    var sinceLast: String?

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard fetchBatchSize > 0 else { throw ValidationError("--fetch-batch-size must be positive.") }
        let resolved = try outputFormat()
        try parquet.refuseUnlessParquet(
            resolved == .parquet, hint: "give --format parquet or an --output ending in .parquet")
        if let partitionBy {
            guard output != "-", resolved == .parquet else {
                throw ValidationError(
                    "--partition-by writes a Parquet dataset folder: give --output with --format parquet.")
            }
            guard !partitionBy.split(separator: ",").isEmpty else {
                throw ValidationError("--partition-by names no key path; write --partition-by category.name.")
            }
        }
        if let fields, fields.split(separator: ",").isEmpty {
            throw ValidationError("--fields names no field; write --fields sku,name.")
        }
    }

    /// The format written: `--format`, else `--output`'s extension (CSV for standard output).
    private func outputFormat() throws -> RecordFormat {
        if output == "-" { return format ?? .csv }
        // A partitioned export's folder rarely has an extension, and Parquet is the one format that partitions.
        let choices = partitionBy == nil ? "csv|tsv|ndjson|json|parquet" : "parquet"
        return try resolveFormat(format, path: output, option: "--format", choices: choices)
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let started = Date()
        let result = try await reportingFailures { () async throws -> Exporter.Result in
            var spec = ExportSpec(entity: entity, output: output, format: try outputFormat())
            spec.predicate = filter.predicate
            spec.sort = try sort.map(ExportSpec.sortDescriptors(parsing:)) ?? []
            spec.fields = fields.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            spec.fetchBatchSize = fetchBatchSize
            spec.sinceLast = sinceLast
            spec.parquet = parquet.writerOptions
            spec.partitionBy =
                partitionBy.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
            // Rows written so far (and a partitioned export's files), every --fetch-batch-size rows, on a terminal.
            let progress = ProgressLine(quiet: logging.quiet)
            defer { progress.clear() }
            let step = "export \(entity)"
            progress.begin(step: step)
            do {
                // An incremental export records how far it got in the store.
                return try await location.reading(recordsInStore: sinceLast != nil, logger: logger) {
                    try await $0.export(spec) { progress.update(step: step, export: $0) }
                }
            } catch let error as FetchPredicateError {
                printError("error: --where: \(error.annotatedDescription)")
                throw FerryExitCode.usage
            }
        }
        if !logging.quiet {
            let seconds = String(format: "%.2f", Date().timeIntervalSince(started))
            var line = "exported \(result.rows) \(entity) rows in \(seconds) s"
            if sinceLast != nil { line += " (\(result.deleted) deleted since the previous export)" }
            if output != "-" { line += " to \(output)" }
            printError(line)
        }
    }
}
