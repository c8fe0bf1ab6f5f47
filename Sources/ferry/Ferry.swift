import ArgumentParser

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
        version: "0.1.0",
        subcommands: [
            RunCommand.self, ValidateCommand.self, ImportCommand.self, ExportCommand.self, SnapshotCommand.self,
            InspectCommand.self, HistoryCommand.self, ConvertCommand.self, CountCommand.self,
        ]
    )
}
