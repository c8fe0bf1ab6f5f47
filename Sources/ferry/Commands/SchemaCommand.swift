import ArgumentParser
import FerryStore

/// `ferry schema`: the model a store keeps, printed as a model file.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the model a store keeps, as a model file.",
        discussion: """
            Every store keeps the model it was created with, an inferred one included (an ad hoc `ferry import` \
            without --model infers its model from the data). This prints it as a model file that --model and \
            pipelines' `model:` read, so a store started ad hoc can go on under a model file you edit.

            Examples:
              ferry schema --store catalog.sqlite
              ferry schema --store events.sqlite > Pipelines/events.model.yml
            """
    )

    @Option(help: "The store file.")
    var store: String

    func run() throws {
        let model = try reportingFailures { try PersistentStore.storedModel(at: store) }
        print(model.modelFileYAML, terminator: "")
    }
}
