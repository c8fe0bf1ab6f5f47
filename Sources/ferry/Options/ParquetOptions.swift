public import ArgumentParser
public import FerryIO

/// `--compression`, `--zstd-level`, `--row-group-rows` and `--row-group-mib`: how `ferry export` and `ferry snapshot`
/// lay out Parquet files.
struct ParquetOptions: ParsableArguments {
    @Option(help: "Parquet's page compression: zstd, snappy or uncompressed.")
    var compression: ParquetCompression = .zstd

    @Option(help: "Parquet's Zstandard level, 1 (fastest) to 22 (smallest).")
    var zstdLevel = ParquetWriter.Options().zstdLevel

    @Option(help: "The most rows in one Parquet row group.")
    var rowGroupRows = ParquetWriter.Options().rowGroupRows

    @Option(
        name: .customLong("row-group-mib"),
        help: "The most MiB of pages, before compression, in one Parquet row group (checked every 1024 rows).")
    var rowGroupMiB = ParquetWriter.Options().rowGroupMebibytes

    func validate() throws {
        guard ParquetWriter.Options.zstdLevels.contains(zstdLevel) else {
            throw ValidationError("--zstd-level must be 1 (fastest) to 22 (smallest); found \(zstdLevel).")
        }
        guard rowGroupRows > 0 else {
            throw ValidationError("--row-group-rows must be at least 1; found \(rowGroupRows).")
        }
        guard rowGroupMiB > 0 else {
            throw ValidationError("--row-group-mib must be at least 1; found \(rowGroupMiB).")
        }
    }

    /// The writer's options these give.
    var writerOptions: ParquetWriter.Options {
        var options = ParquetWriter.Options()
        options.compression = compression
        options.zstdLevel = zstdLevel
        options.rowGroupRows = rowGroupRows
        options.rowGroupMebibytes = rowGroupMiB
        return options
    }
}

extension ParquetCompression: ExpressibleByArgument {}
