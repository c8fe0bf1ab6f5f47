import ArgumentParser
import FerryCodegen
import FerryStore
import Foundation

/// `ferry generate swift MODEL --output DIR`: typed `ManagedObject` subclasses, two files per entity.
struct GenerateSwiftCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swift",
        abstract: "Generate typed Swift classes for a model's entities (two files per entity, as mogenerator).",
        discussion: """
            MODEL is a YAML model file, an .xcdatamodeld folder (its current version) or \
            one .xcdatamodel folder; it is checked first, as `ferry validate` does \
            (errors stop with exit 78).

            Per entity, two files:
              _Product.swift  the machine class _Product, rewritten every time (do not
                              edit it): typed properties (optional where the model
                              says), relationships (to-one; to-many as a Set, ordered
                              as an array; addTo…/removeFrom…), Attributes and
                              Relationships name constants, and the fetch request
                              templates as typed functions.
              Product.swift   the class Product: _Product, for your own code (lifecycle
                              callbacks, validation, helpers); written only when no
                              Product.swift exists under --human-output.
            And the model type (CatalogModel.swift for Catalog.xcdatamodeld), which \
            embeds the model as YAML text, so the program reads no model file: \
            `CatalogModel.makeContainer(name:storeDescription:)` makes a container with \
            the classes registered. Objects come from `Product.insert(into: context)` and \
            `context.fetch(Product.fetchRequest())`.

            The same model gives the same bytes; files already up to date are not \
            touched. The build-tool plugin FerryModelPlugin does the same at build time.

            Examples:
              ferry generate swift App/Catalog.xcdatamodeld --output Sources/App/Model
              ferry generate swift Pipelines/catalog.model.yml \\
                --output Sources/Catalog/Generated --human-output Sources/Catalog \\
                --access public
            """
    )

    @Argument(help: "The model: a YAML model file, an .xcdatamodeld folder or an .xcdatamodel folder.")
    var model: String?

    @Option(name: .customLong("model"), help: "The model, as an option (instead of the argument).")
    var modelOption: String?

    @Option(help: "The folder for the machine files and the model type (made when missing).")
    var output: String

    @Option(help: "The folder for the human files, searched with its sub-folders (default: --output).")
    var humanOutput: String?

    @Option(help: "The name of the model type (default: from the model file's name, as CatalogModel).")
    var name: String?

    @Option(help: "internal, or public for a library target (open classes, public members).")
    var access: Access = .internal

    /// The access levels `--access` takes.
    enum Access: String, ExpressibleByArgument, CaseIterable {
        case `internal`
        case `public`
    }

    func validate() throws {
        if (model == nil) == (modelOption == nil) {
            throw ValidationError("give the model once: as the argument MODEL or as --model")
        }
        if let name,
            !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
                || name.first?.isNumber != false
        {
            throw ValidationError(
                "--name '\(name)' is not a Swift type name (letters, digits and _, not first a digit)")
        }
    }

    func run() throws {
        try reportingFailures {
            let path = model ?? modelOption ?? ""
            let file = try ModelFile(contentsOf: path)
            for warning in file.warnings { printError("warning: \(warning)") }
            let source = URL(fileURLWithPath: path).standardizedFileURL.lastPathComponent
            let generator = SwiftModelGenerator(
                model: file.model, modelTypeName: name ?? SwiftModelGenerator.modelTypeName(forModelAt: path),
                source: source, accessLevel: access == .public ? .public : .internal)
            let report = try SwiftCodeWriter(outputFolder: output, humanFolder: humanOutput).write(generator)
            for written in report.written { print("wrote \(written)") }
            for kept in report.kept { print("kept \(kept)") }
            printError(
                "generated \(counted(file.model.entities.count, "entity", "entities")) of \(source): "
                    + "\(counted(report.written.count, "file", "files")) written, \(report.unchanged.count) unchanged, "
                    + "\(report.kept.count) human kept")
        }
    }
}
