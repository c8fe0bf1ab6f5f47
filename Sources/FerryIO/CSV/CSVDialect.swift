/// How a CSV (or TSV) file is written: separators, quoting, header, nulls and how strictly to read it.
///
/// ```swift
/// var dialect = CSVDialect.csv
/// dialect.nullTokens = ["", "NA"]
/// let reader = try CSVReader(path: "products.csv", dialect: dialect)
/// ```
public struct CSVDialect: Sendable, Hashable {
    /// The field separator byte (`,` for CSV, tab for TSV, `;`, `|`…).
    public var delimiter: UInt8
    /// The quote byte.
    public var quote: UInt8
    /// Whether the first record names the columns.
    public var hasHeader: Bool
    /// Whether spaces and tabs around unquoted fields are dropped. Off by default: data is kept as written.
    public var trimsSpaces: Bool
    /// Field texts read as null.
    ///
    /// The empty token `""` matches only an *unquoted* empty field: a quoted `""` stays an empty string (as in
    /// PostgreSQL's CSV format). Other tokens match the field's text whether or not it was quoted, because
    /// libcsv does not report quoting for non-empty fields. The default, `[""]`, reads unquoted empty fields
    /// as null.
    public var nullTokens: [String]
    /// Whether blank lines are skipped. When `false`, a blank line is a record with one empty field.
    public var skipsEmptyLines: Bool
    /// Whether malformed quoting is an error (the default). When `false`, the reader repairs it as libcsv
    /// does and counts the repairs in ``CSVReader/repairs``.
    public var isStrict: Bool
    /// Whether records may have a different number of fields than the header (or the first record).
    public var allowsRaggedRows: Bool
    /// The largest field accepted, in bytes, so that a broken file cannot exhaust memory.
    public var maxFieldBytes: Int

    /// Creates a dialect; every parameter defaults to RFC 4180 CSV with a header.
    public init(
        delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8 = UInt8(ascii: "\""), hasHeader: Bool = true,
        trimsSpaces: Bool = false, nullTokens: [String] = [""], skipsEmptyLines: Bool = true,
        isStrict: Bool = true, allowsRaggedRows: Bool = false, maxFieldBytes: Int = 16 * 1024 * 1024
    ) {
        self.delimiter = delimiter
        self.quote = quote
        self.hasHeader = hasHeader
        self.trimsSpaces = trimsSpaces
        self.nullTokens = nullTokens
        self.skipsEmptyLines = skipsEmptyLines
        self.isStrict = isStrict
        self.allowsRaggedRows = allowsRaggedRows
        self.maxFieldBytes = maxFieldBytes
    }

    /// Comma-separated values as in RFC 4180, with a header.
    public static let csv = CSVDialect()
    /// Tab-separated values, with a header.
    public static let tsv = CSVDialect(delimiter: UInt8(ascii: "\t"))
}
