import ArgumentParser
import CGlibcExtras
import FerryIO

/// The `ferry` command: moves data in bulk between files and a Core Data-style store on SQLite.
@main
struct Ferry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry",
        abstract: "Move data in bulk between CSV/JSON files and a Core Data-style store on SQLite.",
        discussion: """
            Data goes to standard output, logs and errors to standard error.

            Exit codes, for cron wrappers:
              0   success
              64  usage error (bad arguments)
              65  bad input data (malformed CSV/JSON; the message says file, line and column)
              66  input missing or unreadable
              74  I/O error (disk full, write or rename failed)
              75  the store is locked by another run (the message names it); retry later
              78  invalid pipeline or model file
              130 stopped by SIGINT/SIGTERM at a chunk boundary; `--resume` continues
            """,
        version: FerryVersion.current,
        subcommands: [
            RunCommand.self, ValidateCommand.self, ImportCommand.self, ExportCommand.self, SnapshotCommand.self,
            InspectCommand.self, HistoryCommand.self, SchemaCommand.self, PruneCommand.self, ConvertCommand.self,
            CountCommand.self, MigrateCommand.self, PublishCommand.self, ModelCommand.self, GenerateCommand.self,
        ]
    )

    /// Parses the arguments and runs the command, as ArgumentParser's own entry point does, after one setting of
    /// the process.
    ///
    /// glibc's malloc gives each thread that contends for the heap an arena of its own, up to eight per core, and
    /// memory freed into one arena serves only that arena. An import allocates its chunks on the reader thread and
    /// frees them on the writer's, and a context's objects are made and released on whichever thread runs its
    /// queue: with an arena per thread, freed memory piles up beside the live memory (figures in
    /// Tests/Benchmarks/README.md). One arena keeps it reusable. Blocks of 1 MiB and more are mapped on their own
    /// and unmapped when freed, rather than glibc raising that bound to the largest block freed so far: the
    /// context-mode import's chunk buffers then leave no holes in the heap (its peak fell by about 5 MiB).
    static func main() async {
        _ = ferry_malloc_limit_arenas(1)
        _ = ferry_malloc_set_mmap_threshold(1 << 20)
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
