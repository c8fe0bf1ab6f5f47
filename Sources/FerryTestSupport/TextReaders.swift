/// Reads CSV, TSV, NDJSON and JSON exports with Python's `csv` and `json` modules and with DuckDB (through
/// `Tests/text_read.py` and ``ReaderScript``), for tests that check what other tools make of Ferry's text files.
public enum TextReaders {
    /// Reads a CSV file (a TSV file when `tabs`) with Python's `csv.reader` (strict), giving every line of fields
    /// with the header, and with DuckDB's `read_csv`, by column with the types its sniffer chose.
    ///
    /// - Throws: ``ReaderScript/Unavailable`` without the readers, or when either fails (its message in the error).
    public static func readCSV(_ path: String, tabs: Bool = false) throws -> (python: [[String]], duckdb: ToolReading) {
        let json = try ReaderScript.run("text_read.py", [tabs ? "tsv" : "csv", path])
        guard let python = json["python"] as? [[String]], let duckdb = json["duckdb"] as? [String: Any] else {
            throw ReaderScript.Unavailable(description: "text_read.py gave no python and duckdb readings")
        }
        return (python, ToolReading(json: duckdb))
    }

    /// Reads an NDJSON file (a JSON array when `lines` is `false`) with Python's `json` module, giving each object
    /// with its values as text (`nil` for null; numbers as Python reads them, exactly), and with DuckDB's
    /// `read_json`, by column with the types it chose.
    ///
    /// - Throws: ``ReaderScript/Unavailable`` without the readers, or when either fails (its message in the error).
    public static func readJSON(
        _ path: String, lines: Bool
    ) throws -> (python: [[String: String?]], duckdb: ToolReading) {
        let json = try ReaderScript.run("text_read.py", [lines ? "ndjson" : "json", path])
        guard let objects = json["python"] as? [[String: Any]], let duckdb = json["duckdb"] as? [String: Any] else {
            throw ReaderScript.Unavailable(description: "text_read.py gave no python and duckdb readings")
        }
        return (objects.map { $0.mapValues { $0 as? String } }, ToolReading(json: duckdb))
    }
}
