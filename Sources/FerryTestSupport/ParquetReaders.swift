/// Reads Parquet files with readers that share no code with Ferry (pyarrow, DuckDB, Apache Spark and Polars, and
/// pandas through pyarrow, all by `Tests/parquet_read.py` through ``ReaderScript``), for tests that check what Ferry
/// writes.
public enum ParquetReaders {
    /// Reads the file at `path` with pyarrow and with DuckDB.
    ///
    /// - Throws: ``ReaderScript/Unavailable`` without the readers, or when the script fails (its standard error in the
    ///   message).
    public static func read(_ path: String) throws -> (pyarrow: ToolReading, duckdb: ToolReading) {
        let json = try run([path])
        guard let pyarrow = json["pyarrow"] as? [String: Any], let duckdb = json["duckdb"] as? [String: Any] else {
            throw ReaderScript.Unavailable(description: "parquet_read.py gave no pyarrow and duckdb readings")
        }
        return (ToolReading(json: pyarrow), ToolReading(json: duckdb))
    }

    /// Reads the files matching `glob` with DuckDB's `read_parquet(…, hive_partitioning = true)`.
    ///
    /// - Throws: ``ReaderScript/Unavailable`` without the readers, or when the script fails.
    public static func readHive(_ glob: String) throws -> ToolReading {
        let json = try run(["--hive", glob])
        guard let duckdb = json["duckdb"] as? [String: Any] else {
            throw ReaderScript.Unavailable(description: "parquet_read.py gave no duckdb reading")
        }
        return ToolReading(json: duckdb)
    }

    /// Reads each of `paths` with Apache Spark (parquet-java, on the JVM), in one Spark session: starting one takes
    /// about ten seconds. A path may be a file or a dataset folder, whose `name=value` sub-folders Spark reads as
    /// partition columns. Each reading has rows, columns (printed as the other readers print them; timestamps as
    /// microseconds) and types (Spark's names, such as `smallint` or `decimal(10,2)`).
    ///
    /// - Throws: ``ReaderScript/Unavailable`` without the readers, or when Spark fails (its message in the error).
    public static func readWithSpark(_ paths: [String]) throws -> [ToolReading] {
        let json = try run(["--spark"] + paths)
        guard let readings = json["spark"] as? [[String: Any]], readings.count == paths.count else {
            throw ReaderScript.Unavailable(description: "parquet_read.py gave no spark reading for each path")
        }
        return readings.map(ToolReading.init(json:))
    }

    /// Reads each of `paths` with pandas (`read_parquet` with nullable dtypes, through pyarrow) and with Polars (its
    /// own reader, in Rust). A path may be a file or a dataset folder, read with hive partitioning (by pandas with the
    /// partition values as strings: its default fails on a null partition). Each reading has rows, columns (printed
    /// as the other readers print them; timestamps as microseconds) and types (pandas' dtypes such as `Int16`,
    /// Polars' such as `Decimal(precision=10, scale=2)`).
    ///
    /// - Throws: ``ReaderScript/Unavailable`` without the readers, or when either fails (its message in the error).
    public static func readAsDataFrames(_ paths: [String]) throws -> (pandas: [ToolReading], polars: [ToolReading]) {
        let json = try run(["--dataframes"] + paths)
        guard let pandas = json["pandas"] as? [[String: Any]], let polars = json["polars"] as? [[String: Any]],
            pandas.count == paths.count, polars.count == paths.count
        else {
            throw ReaderScript.Unavailable(
                description: "parquet_read.py gave no pandas and polars reading for each path")
        }
        return (pandas.map(ToolReading.init(json:)), polars.map(ToolReading.init(json:)))
    }

    private static func run(_ arguments: [String]) throws -> [String: Any] {
        try ReaderScript.run("parquet_read.py", arguments)
    }
}
