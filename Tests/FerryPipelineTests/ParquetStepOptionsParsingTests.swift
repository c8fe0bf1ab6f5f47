import FerryIO
import Testing

@testable import FerryPipeline

/// `rowGroupRows:` and `rowGroupMiB:` in a pipeline's export step, the Parquet writer's row group bounds,
/// `uuidsAsText:`, and the same Parquet keys in a snapshot step.
struct ParquetStepOptionsParsingTests {
    static func yaml(_ settings: String) -> String {
        """
        store: catalog.sqlite
        steps:
          - export: { entity: Product, to: out/products.parquet\(settings) }
        """
    }

    static func parquetOptions(_ settings: String) throws -> ParquetWriter.Options? {
        let file = try PipelineFileParser.parse(yaml: yaml(settings), path: "nightly.yml")
        guard case .export(let spec)? = file.steps.first?.action else { return nil }
        return spec.parquet
    }

    @Test("rowGroupRows and rowGroupMiB set the export step's row group bounds, which default to the writer's")
    func boundsAreRead() throws {
        let set = try #require(try Self.parquetOptions(", rowGroupRows: 50000, rowGroupMiB: 16"))
        #expect(set.rowGroupRows == 50_000)
        #expect(set.rowGroupBytes == 16 * 1024 * 1024)
        let defaults = try #require(try Self.parquetOptions(""))
        #expect(defaults.rowGroupRows == ParquetWriter.Options().rowGroupRows)
        #expect(defaults.rowGroupBytes == ParquetWriter.Options().rowGroupBytes)
        #expect(!defaults.writesUUIDsAsText)
        #expect(try Self.parquetOptions(", uuidsAsText: true")?.writesUUIDsAsText == true)
    }

    @Test("A Parquet snapshot step takes the same Parquet keys as an export step")
    func snapshotStep() throws {
        let yaml = """
            store: catalog.sqlite
            steps:
              - snapshot:
                  {
                    to: out/lake, format: parquet, compression: snappy, zstdLevel: 3, rowGroupRows: 7, rowGroupMiB: 2,
                    uuidsAsText: true
                  }
            """
        let file = try PipelineFileParser.parse(yaml: yaml, path: "nightly.yml")
        guard case .snapshot(let step)? = file.steps.first?.action else {
            Issue.record("no snapshot step")
            return
        }
        #expect(step.writesParquet)
        #expect(step.parquet.compression == .snappy)
        #expect(step.parquet.zstdLevel == 3)
        #expect(step.parquet.rowGroupRows == 7)
        #expect(step.parquet.rowGroupBytes == 2 * 1024 * 1024)
        #expect(step.parquet.writesUUIDsAsText)
    }

    @Test(
        "A row group bound below 1, or not a number, is an issue at its line",
        arguments: [("rowGroupRows", "0"), ("rowGroupMiB", "-2"), ("rowGroupMiB", "big")])
    func boundOutOfRange(key: String, value: String) {
        do {
            _ = try Self.parquetOptions(", \(key): \(value)")
            Issue.record("\(key): \(value) was accepted")
        } catch let error as PipelineFileError {
            let expected =
                "nightly.yml:3: steps[0].export.\(key): expected a whole number of at least 1, found '\(value)'"
            #expect(error.issues.map(\.description) == [expected])
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}

/// The Parquet keys on a step that writes another format: an issue at the key's line, not a setting ignored.
struct ParquetKeysOutsideParquetParsingTests {
    static func issues(_ step: String) -> [String] {
        let yaml = """
            store: catalog.sqlite
            steps:
              - \(step)
            """
        do {
            _ = try PipelineFileParser.parse(yaml: yaml, path: "nightly.yml")
            return []
        } catch let error as PipelineFileError {
            return error.issues.map(\.description)
        } catch {
            return ["unexpected error \(error)"]
        }
    }

    @Test(
        "A Parquet key on a CSV export step is an issue at its line",
        arguments: [
            ("compression", "snappy"), ("zstdLevel", "3"), ("rowGroupRows", "10"), ("rowGroupMiB", "4"),
            ("uuidsAsText", "true"),
        ])
    func csvExport(key: String, value: String) {
        let issues = Self.issues("export: { entity: Product, to: out/products.csv, \(key): \(value) }")
        #expect(
            issues == [
                "nightly.yml:3: steps[0].export.\(key): \(key) lays out Parquet files only; give format: parquet or a "
                    + "to: ending in .parquet"
            ])
    }

    @Test("A Parquet key on a SQLite snapshot step, named or by default, is an issue at its line")
    func sqliteSnapshot() {
        for format in ["", ", format: sqlite"] {
            let issues = Self.issues("snapshot: { to: out/copy\(format), compression: snappy }")
            #expect(
                issues == [
                    "nightly.yml:3: steps[0].snapshot.compression: compression lays out Parquet files only; give "
                        + "format: parquet"
                ])
        }
    }

    @Test("A Parquet key on an export made Parquet by format: rather than by its extension is taken")
    func parquetByFormat() throws {
        let yaml = """
            store: catalog.sqlite
            steps:
              - export: { entity: Product, to: out/products.data, format: parquet, compression: snappy }
            """
        let file = try PipelineFileParser.parse(yaml: yaml, path: "nightly.yml")
        guard case .export(let spec)? = file.steps.first?.action else {
            Issue.record("no export step")
            return
        }
        #expect(spec.parquet.compression == .snappy)
    }
}
