import ArgumentParser

/// `ferry generate`: code made from a model.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate code from a model: typed Swift classes for its entities.",
        subcommands: [GenerateSwiftCommand.self]
    )
}
