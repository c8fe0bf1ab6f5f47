public import ArgumentParser
public import FerryIO

extension RecordFormat: ExpressibleByArgument {}

/// How to read the input: the options `convert` and `count` share.
struct ReadOptions: ParsableArguments {
    @Option(help: "Field separator of CSV/TSV input: one character, or 'tab'. (default: ',' for csv, tab for tsv)")
    var delimiter: String?

    @Flag(help: "The CSV/TSV input has no header line; columns are named column1, column2, …")
    var noHeader = false

    @Option(
        name: .customLong("null"),
        help: ArgumentHelp(
            "Field text read as null; repeat for several. (default: an unquoted empty field)",
            discussion: "A quoted empty field (\"\") always stays an empty string; pass --null '' to keep "
                + "that default alongside other tokens.",
            valueName: "token"))
    var nullTokens: [String] = []

    @Flag(help: "Repair malformed CSV quoting as libcsv does, instead of failing.")
    var lenient = false

    @Flag(help: "Accept CSV records whose field count differs from the header's.")
    var allowRaggedRows = false

    @Flag(help: "Flatten nested JSON objects into dotted key paths such as address.city.")
    var flatten = false

    func validate() throws {
        _ = try delimiterByte()
    }

    /// The delimiter as one byte, or `nil` when not given.
    func delimiterByte() throws -> UInt8? {
        guard let delimiter else { return nil }
        switch delimiter {
        case "tab", "\\t", "\t": return UInt8(ascii: "\t")
        default:
            guard delimiter.utf8.count == 1, let byte = delimiter.utf8.first, byte != UInt8(ascii: "\""),
                byte != 0x0A, byte != 0x0D
            else {
                throw ValidationError(
                    "--delimiter must be one ASCII character other than a quote or newline, or 'tab'.")
            }
            return byte
        }
    }

    /// The CSV dialect for `format`, or `nil` for JSON formats.
    func dialect(for format: RecordFormat) throws -> CSVDialect? {
        guard var dialect = format.defaultDialect else { return nil }
        if let byte = try delimiterByte() { dialect.delimiter = byte }
        dialect.hasHeader = !noHeader
        if !nullTokens.isEmpty { dialect.nullTokens = nullTokens }
        dialect.isStrict = !lenient
        dialect.allowsRaggedRows = allowRaggedRows
        return dialect
    }

    /// Opens the reader for `path` in `format`.
    func openReader(path: String, format: RecordFormat) throws -> any RecordReader {
        try format.openReader(
            path: path, dialect: dialect(for: format), jsonOptions: JSONReaderOptions(flattensNestedObjects: flatten))
    }
}

/// The format named by `--from`/`--format`, or inferred from the path's extension; `choices` (`csv|tsv|ndjson|json`
/// for what is read) is what the error names when there is neither.
func resolveFormat(
    _ explicit: RecordFormat?, path: String, option: String, choices: String = "csv|tsv|ndjson|json"
) throws -> RecordFormat {
    if let explicit { return explicit }
    if let inferred = RecordFormat(inferringFrom: path) { return inferred }
    let what = path == "-" ? "standard input/output" : "'\(path)'"
    throw ValidationError("Cannot infer the format of \(what) from its extension; pass \(option) \(choices).")
}
