import ArgumentParser
import FerryStore
import Foundation

/// `ferry model convert MODEL --to yaml|xcdatamodel --output PATH`: one model, the other format.
struct ModelConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a model between Ferry's YAML and an Xcode Core Data model.",
        discussion: """
            MODEL is a YAML model file, an .xcdatamodeld folder (its current version, as .xccurrentversion names \
            it) or one .xcdatamodel folder. It is checked first, as `ferry validate` does; warnings (parts of an \
            Xcode model Ferry does not use) are printed, errors stop the conversion (exit 78).

            --to yaml writes a model file that --model and pipelines' `model:` read; --to xcdatamodel writes a \
            folder Xcode opens (an .xcdatamodel with its XML `contents`, or, for a path ending in .xcdatamodeld, a \
            bundle holding that one version). Either reads back to the same model, with the same version hash, so a \
            store made from one opens with the other. An existing output is replaced.

            Xcode lists entities by name when it saves a model; Ferry numbers entities in model order, so a model \
            converted to Xcode and saved again there may need a migration of stores made before.

            Examples:
              ferry model convert App/Catalog.xcdatamodeld --to yaml --output Pipelines/catalog.model.yml
              ferry model convert Pipelines/catalog.model.yml --to xcdatamodel --output App/Catalog.xcdatamodel
            """
    )

    /// The formats a model converts to.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case yaml
        case xcdatamodel
    }

    @Argument(help: "The model: a YAML model file, an .xcdatamodeld folder or an .xcdatamodel folder.")
    var model: String

    @Option(help: "The format to write.")
    var to: Format

    @Option(help: "Where to write: a .yml file, or an .xcdatamodel (or .xcdatamodeld) folder.")
    var output: String

    func validate() throws {
        if to == .xcdatamodel && !XcodeModelBundle.isXcodeModel(output) {
            throw ValidationError("--to xcdatamodel writes a folder ending in .xcdatamodel or .xcdatamodeld")
        }
        if to == .yaml && XcodeModelBundle.isXcodeModel(output) {
            throw ValidationError("--to yaml writes a file; '\(output)' names an Xcode model folder")
        }
    }

    func run() throws {
        try reportingFailures {
            let file = try ModelFile(contentsOf: model)
            for warning in file.warnings { printError("warning: \(warning)") }
            switch to {
            case .yaml:
                try Data(file.model.modelFileYAML.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            case .xcdatamodel:
                try file.model.writeXcodeModel(to: output)
            }
            printError("wrote \(output) (\(counted(file.model.entities.count, "entity", "entities")), \(to.rawValue))")
        }
    }
}
