import ArgumentParser
import FerryPipeline
import FerryStore
import Foundation

/// `ferry validate PIPELINE`: checks a pipeline file and its model without touching data.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a pipeline file (or a model file) without touching any data.",
        discussion: """
            Every problem is listed with its file, line and key path, and what would be valid; the exit code is \
            78 when there is any. A file with `entities:` at the top is checked as a model file, and so is an \
            Xcode model (an .xcdatamodeld folder, whose current version is checked, or one .xcdatamodel folder).

            Examples:
              ferry validate Pipelines/nightly.yml
              ferry validate Pipelines/catalog.model.yml
              ferry validate App/Catalog.xcdatamodeld
            """
    )

    @Argument(help: "The pipeline or model file.")
    var file: String

    func run() throws {
        try reportingFailures {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            let isModel =
                XcodeModelBundle.isXcodeModel(file)
                || text.split(separator: "\n").contains(where: { $0.hasPrefix("entities:") })
            if isModel {
                let model = try ModelFile(contentsOf: file)
                for warning in model.warnings { printError("warning: \(warning)") }
                print("\(file): valid model (\(counted(model.model.entities.count, "entity", "entities")))")
                return
            }
            let pipeline = try PipelineFileParser.parse(contentsOf: file)
            let model: ManagedObjectModel
            if let modelPath = pipeline.model {
                model = try ModelFile(contentsOf: modelPath).model
            } else {
                model = try PersistentStore.storedModel(at: pipeline.store)
            }
            let issues = PipelineValidator.issues(in: pipeline, model: model)
            guard issues.isEmpty else { throw PipelineFileError(issues: issues) }
            print("\(file): valid pipeline (\(counted(pipeline.steps.count, "step", "steps")) on \(pipeline.store))")
        }
    }
}
