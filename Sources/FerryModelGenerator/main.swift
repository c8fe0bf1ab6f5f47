import FerryCodegen
import FerryStore
import Foundation

// The generator the build-tool plugin FerryModelPlugin runs: one model in, one Swift file out.
//
//     FerryModelGenerator MODEL --output FILE --human-classes-in FOLDER [--name TYPE] [--access public]
//
// The file holds the model type, every machine class, and a default human class (`class Product: _Product {}`)
// for each entity with no Product.swift under FOLDER (the target's sources), so a target compiles before any
// human class is written and keeps the one written once it exists. `ferry generate swift` is the command for
// people; this tool is small so that building the plugin does not build the whole `ferry` command.

/// Prints `message` to standard error and exits with `status` (78 for a model that does not load, as `ferry`).
func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("FerryModelGenerator: error: \(message)\n".utf8))
    exit(status)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var options: [String: String] = [:]
var model: String?
while let argument = arguments.first {
    arguments.removeFirst()
    if argument.hasPrefix("--") {
        guard let value = arguments.first else { fail("\(argument) needs a value", status: 64) }
        arguments.removeFirst()
        options[String(argument.dropFirst(2))] = value
    } else if model == nil {
        model = argument
    } else {
        fail("one model only; '\(argument)' is one too many", status: 64)
    }
}
let known: Set<String> = ["output", "human-classes-in", "name", "access"]
if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
    fail("unknown option --\(unknown)", status: 64)
}
guard let model, let output = options["output"], let humanFolder = options["human-classes-in"] else {
    fail(
        "usage: FerryModelGenerator MODEL --output FILE --human-classes-in FOLDER [--name TYPE] [--access public]",
        status: 64)
}
let access: SwiftModelGenerator.AccessLevel
switch options["access"] ?? "internal" {
case "internal": access = .internal
case "public": access = .public
case let other: fail("--access is internal or public, not '\(other)'", status: 64)
}

let file: ModelFile
do {
    file = try ModelFile(contentsOf: model)
} catch {
    fail("\(error)", status: 78)
}
for warning in file.warnings {
    FileHandle.standardError.write(Data("FerryModelGenerator: warning: \(warning)\n".utf8))
}
let generator = SwiftModelGenerator(
    model: file.model, modelTypeName: options["name"] ?? SwiftModelGenerator.modelTypeName(forModelAt: model),
    source: URL(fileURLWithPath: model).standardizedFileURL.lastPathComponent, generatorName: "FerryModelPlugin",
    accessLevel: access)
do {
    try SwiftCodeWriter(outputFolder: (output as NSString).deletingLastPathComponent, humanFolder: humanFolder)
        .writeSingleFile(generator, to: output)
} catch {
    fail("\(error)", status: 74)
}
