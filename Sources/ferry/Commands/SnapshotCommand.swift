import ArgumentParser
import FerryPipeline
import Foundation
import FerryStore
import Logging

/// `ferry snapshot`: a consistent copy of a store, with its blob files and a manifest, into a folder.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Copy a store, consistently and while it is in use, into a folder with its blob files.",
        discussion: """
            The copy is made with SQLite's VACUUM INTO: a consistent, compacted single file, taken while imports \
            carry on. The external blob files the copy refers to are copied into <store file>-blobs/ beside it, and \
            DIR/manifest.json records each entity's row count, the history token and runs the copy holds, and the \
            copy's SHA-256. The copy opens like any store (ferry inspect --store DIR/<store file>). The store is \
            opened read-only and left as it is, so one on a read-only mount or in another user's folder copies too.

            The snapshot is built in a hidden folder beside DIR and renamed to DIR when complete: DIR holds a whole \
            snapshot or does not exist, and what a killed snapshot left is removed by the next one. A snapshot is \
            never overwritten: if DIR exists and is not empty, nothing is written and the exit code is 74. DIR is \
            created when missing.

            --format parquet writes a Parquet dataset for analytics instead: one sub-folder per entity \
            (DIR/Product/part-00000.parquet, typed as ferry export types Parquet), every entity from the same \
            consistent snapshot, DIR/manifest.json (each file's rows, bytes and SHA-256, the history token and runs) \
            and DIR/_SUCCESS, renamed into place complete. Read it with DuckDB: \
            SELECT * FROM 'DIR/Product/*.parquet'.

            Examples:
              ferry snapshot --store catalog.sqlite --output /backups/$(date +%F)
              ferry snapshot --store catalog.sqlite --output lake/catalog --format parquet
              ferry snapshot --store catalog.sqlite --output snap && sqlite3 snap/catalog.sqlite '.tables'
            """
    )

    @OptionGroup var location: StoreOptions

    @Option(name: .shortAndLong, help: "The folder to write the snapshot into.")
    var output: String


    @Option(help: "sqlite (a copy of the store, the default) or parquet (a dataset folder, one sub-folder per entity).")
    var format: SnapshotFormat = .sqlite

    @OptionGroup(title: "Parquet") var parquet: ParquetOptions

    /// What a snapshot is made of.
    enum SnapshotFormat: String, ExpressibleByArgument, CaseIterable {
        case sqlite, parquet
    }

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try parquet.refuseUnlessParquet(format == .parquet, hint: "give --format parquet")
    }

    func run() async throws {
        let logger = logging.bootstrap()
        if format == .parquet { return try await runParquet(logger: logger) }
        let manifest = try await reportingFailures { () async throws -> SnapshotManifest in
            try await location.reading(logger: logger) { session in
                try await StoreSnapshotter(store: session.container.persistentStore, logger: logger)
                    .snapshot(into: output)
            }
        }
        if !logging.quiet {
            let rows = manifest.entities.map { "\($0.name) \($0.rows)" }.joined(separator: ", ")
            printError(
                "snapshot written to \(output)/\(manifest.file) (\(rows); \(manifest.blobFiles) blob files)")
        }
    }

    private func runParquet(logger: Logger) async throws {
        let manifest = try await reportingFailures { () async throws -> ParquetSnapshotter.Manifest in
            // Each entity's rows written so far, on a terminal.
            let progress = ProgressLine(quiet: logging.quiet)
            defer { progress.clear() }
            return try await location.reading(logger: logger) { session in
                try await ParquetSnapshotter(store: session.container.persistentStore, logger: logger)
                    .snapshot(into: output, options: parquet.writerOptions) { entity, rows in
                        progress.update(step: "snapshot \(entity)", rows: rows)
                    }
            }
        }
        if !logging.quiet {
            let rows = manifest.files.map { "\($0.entity) \($0.rows)" }.joined(separator: ", ")
            printError("Parquet snapshot written to \(output) (\(rows))")
        }
    }
}
