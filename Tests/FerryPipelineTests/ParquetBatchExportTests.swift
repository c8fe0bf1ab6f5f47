import FerryIO
import FerryTestSupport
import Foundation
import Synchronization
import Testing

@testable import FerryPipeline
@testable import FerryStore

/// The Parquet export writes each batch of rows column by column: every row arrives, in order, with nulls where the
/// store has none, and progress is reported every `fetchBatchSize` rows as for row-by-row exports.
@Suite("Parquet export in batches")
struct ParquetBatchExportTests {
    @Test("A Parquet export of rows spanning many batches writes every row in order and reports progress per fetch batch")
    func everyRowAndProgress() async throws {
        let fixture = try await ExportFixture()
        let count = 5000
        var items: [[String: AttributeValue?]] = []
        for number in 1...count {
            var item: [String: AttributeValue?] = [:]
            item["sku"] = .some(.string(String(format: "SKU-%05d", number)))
            item["big"] = number % 7 == 0 ? .some(nil) : .some(.integer(Int64(number) * 1_000_003))
            item["ratio"] = .some(.double(Double(number) / 4))
            items.append(item)
        }
        try await fixture.insertItems(items)
        let seen = Mutex<[ExportProgress]>([])
        let result = try await fixture.export(
            to: "items.parquet",
            { spec in
                spec.fetchBatchSize = 1200
                spec.fields = ["sku", "big", "ratio"]
                spec.sort = [FetchSortDescriptor(key: "sku")]
            },
            progress: { progress in seen.withLock { $0.append(progress) } })
        #expect(result.rows == count)
        #expect(seen.withLock { $0 } == [.rows(1200), .rows(2400), .rows(3600), .rows(4800)])
        let readings = try ParquetReaders.read(fixture.file("items.parquet"))
        for reading in [readings.pyarrow, readings.duckdb] {
            #expect(reading.rows == count)
            #expect(reading.column("sku") == (1...count).map { String(format: "SKU-%05d", $0) })
            #expect(reading.column("big") == (1...count).map { $0 % 7 == 0 ? nil : "\(Int64($0) * 1_000_003)" })
            #expect(reading.column("ratio").map { $0.flatMap(Double.init) } == (1...count).map { Double($0) / 4 })
        }
    }
}
