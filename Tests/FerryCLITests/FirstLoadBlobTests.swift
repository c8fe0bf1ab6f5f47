import FerryPipeline
import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// A first load defers its indexes in both modes; a record repeating an earlier record's key in a later chunk is
/// stored until the index build deletes it, and its blob file goes with it, so files and rows still agree.
struct FirstLoadBlobTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test(arguments: ["batch", "context"])
    func aRepeatedKeysBlobFileIsRemovedWithItsRow(mode: String) throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("SampleData")
        // SKU-0001 again, last, with a photo of its own (other bytes, so another blob file).
        var photo = try Data(contentsOf: data.appendingPathComponent("images/espresso-beans.png"))
        photo[photo.count - 1] ^= 0xFF
        try photo.write(to: data.appendingPathComponent("images/espresso-again.png"))
        var csv = try String(contentsOf: data.appendingPathComponent("products.csv"), encoding: .utf8)
        csv +=
            "SKU-0001,Espresso Again,Coffee,1.00,1,1.0,true,2026-01-20T08:00:00Z,Repeats a key,coffee,"
            + "images/espresso-again.png\n"
        try csv.write(to: data.appendingPathComponent("repeated.csv"), atomically: true, encoding: .utf8)
        let store = folder.appendingPathComponent("store.sqlite")

        let result = try ferry.run(
            [
                "import", "SampleData/repeated.csv", "--store", store.path, "--model", "Pipelines/catalog.model.yml",
                "--entity", "Product", "--relationship", "category=Category.name", "--create-missing", "--blob",
                "photo", "--mode", mode, "--chunk", "4", "--json",
            ], in: folder)

        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(ImportResult.self, from: Data(result.standardOutput.utf8))
        // The repeated SKU-0001 differs from the stored one: kept.
        #expect(report.counts.read == 21 && report.counts.inserted == 15 && report.counts.kept == 1)
        #expect(report.counts.rejected == 5)
        #expect(
            try PipelineCommandTests.rows(store, "SELECT name FROM Product WHERE sku = 'SKU-0001'") == [
                [.text("Espresso Beans 1kg")]
            ])
        // The three photos of the stored rows, and not the repeated record's.
        let files = try FileManager.default.subpathsOfDirectory(atPath: store.path + "-blobs").filter {
            $0.count > 3
        }
        #expect(files.count == 3, "\(files)")
        #expect(try PipelineCommandTests.rows(store, "PRAGMA integrity_check") == [[.text("ok")]])
    }
}
