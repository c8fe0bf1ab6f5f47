import FerryIO
import Testing

@testable import FerryPipeline

/// `zstdLevel:` in a pipeline's export step: the Parquet writer's Zstandard level, 1 to 22.
struct ExportStepZstdLevelParsingTests {
    static func yaml(_ level: String) -> String {
        """
        store: catalog.sqlite
        steps:
          - export: { entity: Product, to: out/products.parquet, zstdLevel: \(level) }
        """
    }

    @Test("zstdLevel sets the export step's Parquet level, and the level defaults to the writer's")
    func levelIsRead() throws {
        let file = try PipelineFileParser.parse(yaml: Self.yaml("19"), path: "nightly.yml")
        guard case .export(let spec)? = file.steps.first?.action else {
            Issue.record("no export step")
            return
        }
        #expect(spec.parquet.zstdLevel == 19)
        let plain = try PipelineFileParser.parse(
            yaml: "store: catalog.sqlite\nsteps:\n  - export: { entity: Product, to: out/p.parquet }\n",
            path: "nightly.yml")
        guard case .export(let defaults)? = plain.steps.first?.action else {
            Issue.record("no export step")
            return
        }
        #expect(defaults.parquet.zstdLevel == ParquetWriter.Options().zstdLevel)
    }

    @Test("A zstdLevel outside 1...22, or not a number, is an issue at its line", arguments: ["0", "23", "fast"])
    func levelOutOfRange(level: String) {
        do {
            _ = try PipelineFileParser.parse(yaml: Self.yaml(level), path: "nightly.yml")
            Issue.record("zstdLevel \(level) was accepted")
        } catch let error as PipelineFileError {
            let expected =
                "nightly.yml:3: steps[0].export.zstdLevel: expected a Zstandard level from 1 to 22, found '\(level)'"
            #expect(error.issues.map(\.description) == [expected])
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
