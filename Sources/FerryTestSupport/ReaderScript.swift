import Foundation

/// Runs the reading scripts in `Tests/` (`parquet_read.py`, `text_read.py`), which read what Ferry writes with
/// tools that share no code with it, and parses the JSON object each prints.
///
/// The Python interpreter comes from the environment variable `FERRY_TEST_PYTHON`, which `make test` sets to a
/// virtual environment it creates with pyarrow, DuckDB, PySpark, pandas and Polars (Spark also needs Java, which
/// `make test` installs).
public enum ReaderScript {
    /// Why the readers could not run.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The virtual environment's Python.
    ///
    /// - Throws: ``Unavailable`` when `FERRY_TEST_PYTHON` is not set or names no file.
    public static func python() throws -> String {
        guard let path = ProcessInfo.processInfo.environment["FERRY_TEST_PYTHON"], !path.isEmpty else {
            throw Unavailable(
                description: "FERRY_TEST_PYTHON is not set: run the tests with `make test`, which creates "
                    + ".venv-test/ with the readers and points FERRY_TEST_PYTHON at its python")
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Unavailable(
                description: "FERRY_TEST_PYTHON names \(path), which is not an executable: run `make test`")
        }
        return path
    }

    /// Runs `Tests/<script>` with `arguments` and returns the JSON object it printed.
    ///
    /// - Throws: ``Unavailable`` without the readers, or when the script fails (its standard error in the message).
    public static func run(_ script: String, _ arguments: [String]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try python())
        let path = TestSupport.packageRoot.appendingPathComponent("Tests").appendingPathComponent(script).path
        process.arguments = [path] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes to the end before waiting, so a large answer cannot fill a pipe and stall the script.
        let errorData = LockedData()
        let errorReader = Thread { errorData.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        errorReader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
        guard process.terminationStatus == 0 else {
            throw Unavailable(
                description: "\(script) \(arguments.joined(separator: " ")) failed (status "
                    + "\(process.terminationStatus)): \(String(decoding: errorData.data, as: UTF8.self))")
        }
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Unavailable(description: "\(script) printed no JSON object")
        }
        return json
    }
}

/// What one reader saw of a file: its rows by column, and (pyarrow only) schema, row groups and statistics.
public struct ToolReading {
    /// The reader's whole answer, as parsed JSON.
    public var json: [String: Any]

    /// The number of rows read.
    public var rows: Int { json["rows"] as? Int ?? -1 }

    /// The values of the column `name` as text, in row order, `nil` for null (see `plain` in `Tests/parquet_read.py`
    /// for how each type prints); `[]` when the reader has no such column.
    public func column(_ name: String) -> [String?] {
        guard let values = (json["columns"] as? [String: Any])?[name] as? [Any] else { return [] }
        return values.map { $0 as? String }
    }

    /// pyarrow's schema entries, in column order.
    public var schema: [[String: Any]] { json["schema"] as? [[String: Any]] ?? [] }

    /// pyarrow's row groups: `rows` and `columns` (compression, encodings, nullCount, hasMinMax, min, max).
    public var rowGroups: [[String: Any]] { json["rowGroups"] as? [[String: Any]] ?? [] }

    /// The statistics of column `index` in row group `group`.
    public func chunk(group: Int, column index: Int) -> [String: Any] {
        guard group < rowGroups.count, let columns = rowGroups[group]["columns"] as? [[String: Any]],
            index < columns.count
        else { return [:] }
        return columns[index]
    }

    /// DuckDB's, Spark's, pandas' or Polars' type names by column.
    public var types: [String: String] { json["types"] as? [String: String] ?? [:] }
}

/// Bytes one thread sets and another waits for.
private final class LockedData: @unchecked Sendable {
    // Safe: every access holds `lock`.
    private let lock = NSLock()
    private var stored: Data?

    func set(_ data: Data) {
        lock.lock()
        stored = data
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stored != nil
    }

    var data: Data {
        lock.lock()
        defer { lock.unlock() }
        return stored ?? Data()
    }
}
