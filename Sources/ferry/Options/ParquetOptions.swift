public import ArgumentParser
public import FerryIO

/// `--compression`, `--zstd-level`, `--row-group-rows`, `--row-group-mib` and `--uuids-as-text`: how `ferry export`
/// and `ferry snapshot` lay out Parquet files. Each is `nil` (the flag `false`) unless given, so that a command
/// writing something else can refuse them (``refuseUnlessParquet(_:hint:)``) rather than ignore them.
struct ParquetOptions: ParsableArguments {
    /// The writer's defaults, which `--help` shows and options not given keep.
    private static let defaults = ParquetWriter.Options()

    @Option(help: "Parquet's page compression (default: \(Self.defaults.compression.rawValue)).")
    var compression: ParquetCompression?

    @Option(help: "Parquet's Zstandard level: 1 is the fastest, 22 the smallest (default: \(Self.defaults.zstdLevel)).")
    var zstdLevel: Int?

    @Option(help: "The most rows in one Parquet row group (default: \(Self.defaults.rowGroupRows)).")
    var rowGroupRows: Int?

    @Option(
        name: .customLong("row-group-mib"),
        help: ArgumentHelp(
            "The most MiB of pages, before compression, in one Parquet row group (default: "
                + "\(Self.defaults.rowGroupMebibytes); checked every 1024 rows)."))
    var rowGroupMiB: Int?

    @Flag(
        help: ArgumentHelp(
            "Write UUID attributes as Parquet STRING columns of their lower-case text rather than as Parquet's UUID "
                + "type, for readers without it, such as Apache Spark."))
    var uuidsAsText = false

    func validate() throws {
        if let zstdLevel, !ParquetWriter.Options.zstdLevels.contains(zstdLevel) {
            throw ValidationError("--zstd-level must be 1 (fastest) to 22 (smallest); found \(zstdLevel).")
        }
        if let rowGroupRows, rowGroupRows <= 0 {
            throw ValidationError("--row-group-rows must be at least 1; found \(rowGroupRows).")
        }
        if let rowGroupMiB, rowGroupMiB <= 0 {
            throw ValidationError("--row-group-mib must be at least 1; found \(rowGroupMiB).")
        }
    }

    /// Throws a usage error naming the first option given when the command writes no Parquet (`isParquet` false).
    func refuseUnlessParquet(_ isParquet: Bool, hint: String) throws {
        let given: [(String, Bool)] = [
            ("--compression", compression != nil), ("--zstd-level", zstdLevel != nil),
            ("--row-group-rows", rowGroupRows != nil), ("--row-group-mib", rowGroupMiB != nil),
            ("--uuids-as-text", uuidsAsText),
        ]
        guard !isParquet, let option = given.first(where: \.1)?.0 else { return }
        throw ValidationError("\(option) lays out Parquet files only; \(hint).")
    }

    /// The writer's options these give, the writer's defaults for those not given.
    var writerOptions: ParquetWriter.Options {
        var options = Self.defaults
        if let compression { options.compression = compression }
        if let zstdLevel { options.zstdLevel = zstdLevel }
        if let rowGroupRows { options.rowGroupRows = rowGroupRows }
        if let rowGroupMiB { options.rowGroupMebibytes = rowGroupMiB }
        options.writesUUIDsAsText = uuidsAsText
        return options
    }
}

extension ParquetCompression: ExpressibleByArgument {}
