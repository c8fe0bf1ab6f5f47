import ArgumentParser

/// The `ferry` command: moves data in bulk between files and a Core Data-style store on SQLite.
@main
struct Ferry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry",
        abstract: "Move data in bulk between CSV/JSON files and a Core Data-style store on SQLite.",
        subcommands: []
    )
}
