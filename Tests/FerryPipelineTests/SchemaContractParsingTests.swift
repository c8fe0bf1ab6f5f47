import FerryStore
import Testing

@testable import FerryPipeline

/// The `schema:` key of an import step: its four spellings, a misspelling, and `evolve` beside a model file.
struct SchemaContractParsingTests {
    @Test func eachContractIsSpelledAsOnTheCommandLineAndAStepWithoutOneDiscardsColumns() throws {
        for contract in SchemaContract.allCases {
            let file = try PipelineFileParser.parse(
                yaml: "store: s.sqlite\nsteps:\n  - import: { source: -, entity: E, schema: \(contract.rawValue) }\n",
                path: "nightly.yml")
            guard case .importRecords(let spec)? = file.steps.first?.action else {
                Issue.record("no import step")
                continue
            }
            #expect(spec.schema == contract)
        }
        let plain = try PipelineFileParser.parse(
            yaml: "store: s.sqlite\nsteps:\n  - import: { source: -, entity: E }\n", path: "nightly.yml")
        guard case .importRecords(let spec)? = plain.steps.first?.action else {
            Issue.record("no import step")
            return
        }
        #expect(spec.schema == .discardColumns)
    }

    @Test func aMisspelledContractIsAnsweredWithTheOneItResembles() {
        #expect(throws: PipelineFileError.self) {
            try PipelineFileParser.parse(
                yaml: "store: s.sqlite\nsteps:\n  - import: { source: -, entity: E, schema: evolv }\n",
                path: "nightly.yml")
        }
        do {
            _ = try PipelineFileParser.parse(
                yaml: "store: s.sqlite\nsteps:\n  - import: { source: -, entity: E, schema: evolv }\n",
                path: "nightly.yml")
        } catch let error as PipelineFileError {
            #expect(
                error.issues.map(\.message).contains {
                    $0.contains("found 'evolv'") && $0.contains("did you mean 'evolve'?")
                }, "\(error.issues)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func evolveBesideAModelFileIsAnIssueAtTheStepsSchemaKey() {
        do {
            _ = try PipelineFileParser.parse(
                yaml: "store: s.sqlite\nmodel: m.yml\nsteps:\n  - import: { source: -, entity: E, schema: evolve }\n",
                path: "nightly.yml")
            Issue.record("the file was accepted")
        } catch let error as PipelineFileError {
            #expect(error.issues.count == 1)
            #expect(error.issues.first?.keyPath == "steps[0].import.schema")
            #expect(error.issues.first?.line == 4)
            #expect(error.issues.first?.message.contains("add the new columns to the model file") == true)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
