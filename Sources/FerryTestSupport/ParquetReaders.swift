import Foundation

/// Reads Parquet files with readers that share no code with Ferry (pyarrow, DuckDB, Apache Spark and Polars, and
/// pandas through pyarrow, all by `Tests/parquet_read.py`), for tests that check what Ferry writes.
///
/// The Python interpreter comes from the environment variable `FERRY_TEST_PYTHON`, which `make test` sets to a
/// virtual environment it creates with pyarrow, DuckDB, PySpark, pandas and Polars (Spark also needs Java, which
/// `make test` installs).
public enum ParquetReaders {
    /// Why the readers could not run.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// What one reader saw of a file: its rows by column, and (pyarrow only) schema, row groups and statistics.
    public struct Reading {
        /// The reader's whole answer, as parsed JSON.
        public var json: [String: Any]

        /// The number of rows read.
        public var rows: Int { json["rows"] as? Int ?? -1 }

        /// The values of the column `name` as text, in row order, `nil` for null (see `Tests/parquet_read.py` for
        /// how each type prints); `[]` when the reader has no such column.
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

    /// Reads the file at `path` with pyarrow and with DuckDB.
    ///
    /// - Throws: ``Unavailable`` without the readers, or when the script fails (its standard error in the message).
    public static func read(_ path: String) throws -> (pyarrow: Reading, duckdb: Reading) {
        let json = try run([path])
        guard let pyarrow = json["pyarrow"] as? [String: Any], let duckdb = json["duckdb"] as? [String: Any] else {
            throw Unavailable(description: "parquet_read.py gave no pyarrow and duckdb readings")
        }
        return (Reading(json: pyarrow), Reading(json: duckdb))
    }

    /// Reads the files matching `glob` with DuckDB's `read_parquet(…, hive_partitioning = true)`.
    ///
    /// - Throws: ``Unavailable`` without the readers, or when the script fails.
    public static func readHive(_ glob: String) throws -> Reading {
        let json = try run(["--hive", glob])
        guard let duckdb = json["duckdb"] as? [String: Any] else {
            throw Unavailable(description: "parquet_read.py gave no duckdb reading")
        }
        return Reading(json: duckdb)
    }

    /// Reads each of `paths` with Apache Spark (parquet-java, on the JVM), in one Spark session: starting one takes
    /// about ten seconds. A path may be a file or a dataset folder, whose `name=value` sub-folders Spark reads as
    /// partition columns. Each reading has rows, columns (printed as the other readers print them; timestamps as
    /// microseconds) and types (Spark's names, such as `smallint` or `decimal(10,2)`).
    ///
    /// - Throws: ``Unavailable`` without the readers, or when Spark fails (its message in the error).
    public static func readWithSpark(_ paths: [String]) throws -> [Reading] {
        let json = try run(["--spark"] + paths)
        guard let readings = json["spark"] as? [[String: Any]], readings.count == paths.count else {
            throw Unavailable(description: "parquet_read.py gave no spark reading for each path")
        }
        return readings.map(Reading.init(json:))
    }

    /// Reads each of `paths` with pandas (`read_parquet` with nullable dtypes, through pyarrow) and with Polars (its
    /// own reader, in Rust). A path may be a file or a dataset folder, read with hive partitioning (by pandas with the
    /// partition values as strings: its default fails on a null partition). Each reading has rows, columns (printed
    /// as the other readers print them; timestamps as microseconds) and types (pandas' dtypes such as `Int16`,
    /// Polars' such as `Decimal(precision=10, scale=2)`).
    ///
    /// - Throws: ``Unavailable`` without the readers, or when either fails (its message in the error).
    public static func readAsDataFrames(_ paths: [String]) throws -> (pandas: [Reading], polars: [Reading]) {
        let json = try run(["--dataframes"] + paths)
        guard let pandas = json["pandas"] as? [[String: Any]], let polars = json["polars"] as? [[String: Any]],
            pandas.count == paths.count, polars.count == paths.count
        else {
            throw Unavailable(description: "parquet_read.py gave no pandas and polars reading for each path")
        }
        return (pandas.map(Reading.init(json:)), polars.map(Reading.init(json:)))
    }

    private static func run(_ arguments: [String]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try python())
        let script = TestSupport.packageRoot.appendingPathComponent("Tests/parquet_read.py").path
        process.arguments = [script] + arguments
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
                description: "parquet_read.py \(arguments.joined(separator: " ")) failed (status "
                    + "\(process.terminationStatus)): \(String(decoding: errorData.data, as: UTF8.self))")
        }
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Unavailable(description: "parquet_read.py printed no JSON object")
        }
        return json
    }
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
