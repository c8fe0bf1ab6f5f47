import ArgumentParser
import FerryIO
import Foundation

/// `ferry convert INPUT OUTPUT`: converts records between CSV, TSV, NDJSON and JSON.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert records between CSV, TSV, NDJSON and JSON, streaming.",
        discussion: """
            Formats come from the file extensions (.csv, .tsv, .ndjson/.jsonl, .json) unless --from/--to say \
            otherwise. CSV values become JSON strings and CSV nulls become null; JSON numbers, booleans and \
            arrays keep their exact text. The columns of JSON input are every key of every record, in first-seen \
            order (a missing key is written as null); JSON read from standard input takes the first record's \
            keys and fails on a new one rather than lose data. The output appears only once complete.

            Examples:
              ferry convert SampleData/products.csv products.ndjson
              ferry convert SampleData/orders.json orders.csv --flatten
              cat data.tsv | ferry convert - - --from tsv --to ndjson
            """
    )

    @Argument(help: "The input file, or - for standard input.")
    var input: String

    @Argument(help: "The output file, or - for standard output.")
    var output: String

    @Option(help: "The input format (default: from the input's extension).")
    var from: RecordFormat?

    @Option(help: "The output format (default: from the output's extension).")
    var to: RecordFormat?

    @OptionGroup var read: ReadOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        _ = try resolveFormat(from, path: input, option: "--from")
        _ = try resolveFormat(to, path: output, option: "--to")
    }

    func run() throws {
        let inputFormat = try resolveFormat(from, path: input, option: "--from")
        let outputFormat = try resolveFormat(to, path: output, option: "--to")
        let started = Date()
        var repairs = 0
        let copied = try reportingFailures { () throws -> Int in
            // JSON records may differ in their keys: a file is read once more first to collect them all.
            var columns: [String]?
            if inputFormat.defaultDialect == nil && input != "-" {
                columns = try RecordCopier.collectFieldNames(from: read.openReader(path: input, format: inputFormat))
            }
            let reader = try read.openReader(path: input, format: inputFormat)
            var outputDialect = outputFormat.defaultDialect
            outputDialect?.hasHeader = !read.noHeader || reader.columnNames == nil
            let writer = try outputFormat.openWriter(path: output, dialect: outputDialect)
            let progress = ProgressLine(quiet: quiet)
            defer { progress.clear() }
            let copied = try RecordCopier(from: reader, to: writer, columns: columns).copyAll(
                progressInterval: 65_536
            ) { progress.update(inputPath: input, records: $0, bytesRead: $1) }
            repairs = (reader as? CSVReader)?.repairs ?? 0
            return copied
        }
        if !quiet {
            let seconds = String(format: "%.2f", Date().timeIntervalSince(started))
            printError("converted \(copied) records (\(inputFormat) → \(outputFormat)) in \(seconds) s")
            if repairs > 0 { printError("repaired \(repairs) malformed quotes (--lenient)") }
        }
    }
}
