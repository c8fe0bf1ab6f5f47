import ArgumentParser

/// `ferry model`: commands about model files themselves.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Work with model files: convert between Ferry's YAML and Xcode's .xcdatamodel.",
        subcommands: [ModelConvertCommand.self]
    )
}
