import ArgumentParser
import FerryIO

/// `ferry count FILE`: the number of records (not lines) in a file.
struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Print the number of records in a CSV, TSV, NDJSON or JSON file.",
        discussion: """
            Records, not lines: a quoted CSV field may span lines, and a CSV header is not counted. The whole file \
            is parsed, so a malformed file exits with 65 and a message naming the line and column of its first \
            error, even one an import would reject alone (a bad NDJSON line, a CSV row of the wrong width).

            Examples:
              ferry count SampleData/products.csv
              gunzip -c big.csv.gz | ferry count - --format csv
            """
    )

    @Argument(help: "The file to count, or - for standard input.")
    var file: String

    @Option(help: "The input format (default: from the file's extension).")
    var format: RecordFormat?

    @OptionGroup var read: ReadOptions

    func validate() throws {
        _ = try resolveFormat(format, path: file, option: "--format")
    }

    func run() throws {
        let format = try resolveFormat(format, path: file, option: "--format")
        let count = try reportingFailures { () throws -> Int in
            if let dialect = try read.dialect(for: format), let count = countOnEveryCore(dialect: dialect) {
                return count
            }
            let reader = try read.openReader(path: file, format: format)
            // Counting needs no field's bytes: the CSV reader then copies none.
            (reader as? CSVReader)?.keepsFieldBytes = false
            let progress = ProgressLine(quiet: false)
            var count = 0
            while try reader.next() != nil {
                count += 1
                if count & 0xFFFF == 0 { progress.update(inputPath: file, records: count, bytesRead: reader.bytesRead) }
            }
            progress.clear()
            if let repairs = (reader as? CSVReader)?.repairs, repairs > 0 {
                printError("repaired \(repairs) malformed quotes (--lenient)")
            }
            return count
        }
        print(count)
    }

    /// The count of a valid CSV or TSV file, parsed in parts on every core; `nil` when the file must be read
    /// from its start instead (standard input, or something to report or repair with its exact position).
    private func countOnEveryCore(dialect: CSVDialect) -> Int? {
        let progress = ProgressLine(quiet: false)
        let file = file
        defer { progress.clear() }
        return CSVRecordCounter(path: file, dialect: dialect).count { bytesRead, records in
            progress.update(inputPath: file, records: records, bytesRead: bytesRead)
        }
    }
}
