/// The file formats Ferry reads and writes.
///
/// Parquet is written only, by ``ParquetWriter`` from typed columns: ``openReader(path:dialect:jsonOptions:)`` and
/// ``openWriter(path:dialect:)`` refuse it.
public enum RecordFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Comma-separated values (RFC 4180).
    case csv
    /// Tab-separated values.
    case tsv
    /// One JSON object per line.
    case ndjson
    /// A JSON array of objects (reading also takes an object whose members are records).
    case json
    /// Apache Parquet, typed and columnar (written by exports, never read).
    case parquet

    public var description: String { rawValue }

    /// The format a path's extension names: `.csv`, `.tsv`/`.tab`, `.ndjson`/`.jsonl`, `.json`, `.parquet`; else
    /// `nil`.
    public init?(inferringFrom path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "csv": self = .csv
        case "tsv", "tab": self = .tsv
        case "ndjson", "jsonl": self = .ndjson
        case "json": self = .json
        case "parquet": self = .parquet
        default: return nil
        }
    }

    /// The CSV dialect this format reads and writes by default (`nil` for JSON formats).
    public var defaultDialect: CSVDialect? {
        switch self {
        case .csv: .csv
        case .tsv: .tsv
        case .ndjson, .json, .parquet: nil
        }
    }

    /// Opens a streaming reader for `path` (`-` for standard input).
    ///
    /// - Parameters:
    ///   - path: the file to read, or `-` for standard input.
    ///   - dialect: the CSV dialect; `nil` uses ``defaultDialect``. Ignored for JSON formats.
    ///   - jsonOptions: options for JSON formats.
    /// - Throws: ``FerryIOError`` when the file cannot be opened or its start is malformed, or with
    ///   ``FerryIOError/Code/unsupportedFormat`` for Parquet.
    public func openReader(
        path: String, dialect: CSVDialect? = nil, jsonOptions: JSONReaderOptions = JSONReaderOptions()
    ) throws -> any RecordReader {
        switch self {
        case .csv, .tsv:
            return try CSVReader(path: path, dialect: dialect ?? defaultDialect ?? .csv)
        case .ndjson:
            return try JSONReader(path: path, layout: .ndjson, options: jsonOptions)
        case .json:
            return try JSONReader(path: path, layout: .automatic, options: jsonOptions)
        case .parquet:
            throw FerryIOError(
                .unsupportedFormat, "Ferry writes Parquet but does not read it; give CSV, TSV, NDJSON or JSON",
                file: path)
        }
    }

    /// Opens a streaming writer for `path` (`-` for standard output).
    ///
    /// - Parameters:
    ///   - path: the file to write, or `-` for standard output.
    ///   - dialect: the CSV dialect; `nil` uses ``defaultDialect``. Ignored for JSON formats.
    /// - Throws: ``FerryIOError`` when the output cannot be created, or with
    ///   ``FerryIOError/Code/unsupportedFormat`` for Parquet.
    public func openWriter(path: String, dialect: CSVDialect? = nil) throws -> any RecordWriter {
        try openWriter(path: path, dialect: dialect, observer: nil)
    }

    /// Opens a streaming writer for `path` whose output file hands every byte it writes to `observer` (see
    /// ``OutputFile/observer``).
    ///
    /// - Throws: ``FerryIOError`` when the output cannot be created, or with
    ///   ``FerryIOError/Code/unsupportedFormat`` for Parquet, whose columns need types (see ``ParquetWriter``).
    public func openWriter(
        path: String, dialect: CSVDialect? = nil, observer: ((UnsafeRawBufferPointer) -> Void)?
    ) throws -> any RecordWriter {
        if self == .parquet {
            throw FerryIOError(
                .unsupportedFormat,
                "Parquet needs typed columns, which only an export from a store gives; write CSV, TSV, NDJSON or JSON",
                file: path)
        }
        let output = try OutputFile(path: path)
        output.observer = observer
        switch self {
        case .csv, .tsv: return CSVWriter(output: output, dialect: dialect ?? defaultDialect ?? .csv)
        case .ndjson: return JSONWriter(output: output, layout: .ndjson)
        case .json: return JSONWriter(output: output, layout: .array)
        case .parquet: preconditionFailure("refused above")
        }
    }
}
