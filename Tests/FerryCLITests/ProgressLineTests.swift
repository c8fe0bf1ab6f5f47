import FerryPipeline
import FerryTestSupport
import Foundation
import Testing

@testable import ferry

/// The progress line's text: percentage and ETA when the input's size is known, bytes read otherwise.
struct ProgressLineTests {
    @Test func aKnownSizeGivesPercentageAndETA() {
        let line = ProgressLine.line(records: 250_000, bytesRead: 50_000_000, totalBytes: 200_000_000, elapsed: 2)
        #expect(line == "25.0% of 200 MB · 250,000 records · 125,000 records/s · ETA 0:06")
    }

    @Test func aPipelineStepIsNamedFirst() {
        let line = ProgressLine.line(
            step: "import Product", records: 250_000, bytesRead: 50_000_000, totalBytes: 200_000_000, elapsed: 2)
        #expect(line == "import Product · 25.0% of 200 MB · 250,000 records · 125,000 records/s · ETA 0:06")
    }

    @Test func anExportGivesRowsWrittenAndTheRate() {
        let line = ProgressLine.line(step: "export Product", export: .rows(1_200_000), elapsed: 2)
        #expect(line == "export Product · 1,200,000 rows · 600,000 rows/s")
    }

    @Test func aPartitionedExportThenGivesTheFilesAndRowsWritten() {
        let progress = ExportProgress.partitionFiles(written: 37, of: 200, rowsWritten: 180_000, rows: 1_200_000)
        let line = ProgressLine.line(step: "export Product", export: progress, elapsed: 2)
        #expect(line == "export Product · partition files 37 of 200 · 180,000 of 1,200,000 rows written")
    }

    @Test func anUnknownSizeGivesBytesRead() {
        let line = ProgressLine.line(records: 1_000, bytesRead: 3_000_000, totalBytes: nil, elapsed: 1)
        #expect(line == "3 MB read · 1,000 records · 1,000 records/s")
    }
}

/// The built binary on a terminal (a pseudo-terminal made by util-linux's `script`): `ferry run` shows each import
/// step's progress with its name and a percentage, as `ferry import` does, and its export steps' as `ferry export`
/// does: the rows written, and a partitioned export then its files; `ferry snapshot --format parquet` each entity's
/// rows; `--quiet`, nothing.
struct ProgressOnATerminalTests {
    let ferry = BuiltCommand(product: "ferry")

    /// What `arguments` print on a terminal, run in `folder`.
    private func onATerminal(_ arguments: [String], in folder: URL) throws -> String {
        let result = try ferry.runOnATerminal(arguments, in: folder)
        #expect(result.status == 0, "\(result.standardOutput)")
        return result.standardOutput
    }

    @Test func aPipelineRunNamesTheStepAndShowsHowFarItsInputHasCome() throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let screen = try onATerminal(["run", "Pipelines/demo.yml"], in: folder)
        #expect(screen.contains("categories · 100.0% of 0 MB · 8 records"), "\(screen)")
        #expect(screen.contains("products · 100.0% of 0 MB · 20 records"), "\(screen)")
        // The export steps: the partitioned one shows its files (16 rows are fewer than a fetch batch).
        #expect(screen.contains("products parquet · partition files 0 of 7 · 0 of 16 rows written"), "\(screen)")
        // The Parquet snapshot step: each entity's rows, the entity named after the step.
        #expect(screen.contains("parquet snapshot: Product · 16 rows · "), "\(screen)")
        // The orders step logs a warning: it erases the progress line first, so the warning has a line of its own.
        let lines = Self.terminalLines(screen)
        let warning = try #require(lines.first { $0.contains("warning") }, "\(lines)")
        #expect(warning.contains(" warning ferry: [FerryPipeline] demo.yml: orders: "), "\(warning)")
        #expect(!warning.contains("records/s"), "\(warning)")
    }

    /// The lines a terminal shows for `output`: a carriage return goes back to the line's start, `ESC [K` erases
    /// the line from there, other characters overwrite what is under them.
    static func terminalLines(_ output: String) -> [String] {
        var lines: [[Character]] = [[]]
        var column = 0
        var characters = output[...]
        while let character = characters.popFirst() {
            switch character {
            case "\r":
                column = 0
            case "\n", "\r\n":
                lines.append([])
                column = 0
            case "\u{1B}" where characters.hasPrefix("[K"):
                characters = characters.dropFirst(2)
                lines[lines.count - 1].removeSubrange(min(column, lines[lines.count - 1].count)...)
            default:
                if column < lines[lines.count - 1].count {
                    lines[lines.count - 1][column] = character
                } else {
                    lines[lines.count - 1].append(character)
                }
                column += 1
            }
        }
        return lines.map { String($0) }
    }

    /// What `ferry export` of the demo store's products, in fetch batches of 5, prints on a terminal with `options`.
    private func exportOfTheDemoProducts(_ options: [String]) throws -> String {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder).status == 0)
        let export = ["export", "--store", "out/demo/catalog.sqlite", "--entity", "Product", "--fetch-batch-size", "5"]
        return try onATerminal(export + options, in: folder)
    }

    @Test func anExportShowsTheRowsWrittenEveryFetchBatch() throws {
        let screen = try exportOfTheDemoProducts(["--output", "products.csv"])
        #expect(screen.contains("export Product · 5 rows · "), "\(screen)")
        #expect(screen.contains("exported 16 Product rows"), "\(screen)")
    }

    @Test func quietShowsNoProgress() throws {
        let screen = try exportOfTheDemoProducts(["--output", "products.csv", "--quiet"])
        #expect(screen.isEmpty, "\(screen)")
    }

    @Test func aParquetSnapshotShowsEachEntitysRows() throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder).status == 0)
        let screen = try onATerminal(
            ["snapshot", "--store", "out/demo/catalog.sqlite", "--format", "parquet", "--output", "lake"], in: folder)
        #expect(screen.contains("snapshot Category · 8 rows · "), "\(screen)")
        #expect(screen.contains("snapshot Product · 16 rows · "), "\(screen)")
        #expect(screen.contains("Parquet snapshot written to lake"), "\(screen)")
    }

    @Test func aPartitionedExportShowsWhenItStartsWritingItsFiles() throws {
        let screen = try exportOfTheDemoProducts([
            "--partition-by", "active", "--format", "parquet", "--output", "products",
        ])
        #expect(screen.contains("export Product · 5 rows · "), "\(screen)")
        // Every demo product is active: one partition.
        #expect(screen.contains("export Product · partition files 0 of 1 · 0 of 16 rows written"), "\(screen)")
        #expect(screen.contains("exported 16 Product rows"), "\(screen)")
    }
}
