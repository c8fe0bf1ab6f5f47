import FerryStore
import Foundation
import Testing

@testable import FerryPipeline

/// The `publish:` step of a pipeline file: its keys, its mistakes, and a URL read from the environment.
struct PublishStepParsingTests {
    @Test func aPublishStepGivesItsSpecWithPathsResolvedAndDefaults() throws {
        let file = try PipelineFileParser.parse(
            yaml: """
                store: catalog.sqlite
                steps:
                  - publish: { entity: Product, to: $CATALOG_URL, table: analytics.products, mode: replace,
                               fields: [sku, category.name], where: "price > 1", chunkSize: 500, maxRejects: 3,
                               rejects: out/rejects.csv }
                  - publish: { entity: Category, to: "postgresql://localhost/catalog" }
                """, path: "/jobs/nightly.yml")
        guard case .publish(let spec) = file.steps.first?.action, case .publish(let plain) = file.steps.last?.action
        else {
            Issue.record("expected two publish steps, got \(file.steps.map(\.kind))")
            return
        }
        #expect(file.steps.map(\.name) == ["publish Product", "publish Category"])
        #expect(spec.url == "$CATALOG_URL")
        #expect(spec.table == "analytics.products")
        #expect(spec.mode == .replace)
        #expect(spec.fields == ["sku", "category.name"])
        #expect(spec.predicate == "price > 1")
        #expect(spec.chunkSize == 500)
        #expect(spec.maxRejects == 3)
        #expect(spec.rejectsPath == "/jobs/out/rejects.csv")
        #expect(plain.table == "category")
        #expect(plain.mode == .upsert)
        #expect(plain.chunkSize == 10_000)
        #expect(plain.maxRejects == 0)
    }

    @Test func anUnknownModeAndAMissingDestinationAreEachAnIssueAtTheirLine() {
        do {
            _ = try PipelineFileParser.parse(
                yaml: """
                    store: catalog.sqlite
                    steps:
                      - publish: { entity: Product, to: "postgresql://localhost/catalog", mode: merge }
                      - publish: { entity: Product, table: products }
                    """, path: "nightly.yml")
            Issue.record("the file parsed")
        } catch let error as PipelineFileError {
            #expect(error.issues.map(\.line) == [3, 4])
            #expect(error.issues.first?.message.contains("upsert") == true)
            #expect(error.issues.last?.keyPath.hasSuffix("to") == true)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func aDestinationNamedByAnEnvironmentVariableIsReadWhenTheStepRuns() throws {
        let spec = PublishSpec(entity: "Product", to: "${CATALOG_URL}")
        #expect(try spec.resolvedURL(environment: ["CATALOG_URL": "postgresql://db/catalog"]) == "postgresql://db/catalog")
        let error = #expect(throws: PipelineError.self) { try spec.resolvedURL(environment: [:]) }
        #expect(error?.code == .invalidSpec)
        #expect(error?.message.contains("CATALOG_URL, which is not set") == true)
        #expect(try PublishSpec(entity: "Product", to: "host=db").resolvedURL(environment: [:]) == "host=db")
    }

    @Test func theValidatorRefusesAPublishOfAFieldTheModelLacks() throws {
        let model = try ManagedObjectModel(yaml: ExportFixture.modelYAML)
        var file = PipelineFile(path: "nightly.yml", store: "catalog.sqlite", model: nil)
        var spec = PublishSpec(entity: "Item", to: "postgresql://localhost/catalog")
        spec.fields = ["sku", "colour"]
        file.steps = [PipelineStep(name: "publish Item", line: 3, action: .publish(spec))]
        let issues = PipelineValidator.issues(in: file, model: model)
        #expect(issues.count == 1)
        #expect(issues.first?.message.contains("Item has no stored attribute 'colour'") == true)
    }
}
