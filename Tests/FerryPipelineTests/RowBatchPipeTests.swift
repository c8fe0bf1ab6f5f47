import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline
@testable import FerryStore

/// The two-thread export loop: rows copied into batches on the reading thread arrive whole and in order on the
/// formatting thread, whatever the batch size, and a failure on either side ends the run with that failure.
struct RowBatchPipeTests {
    struct Stop: Error {}

    /// Items 1…40: every fifth without a ratio, every third with a binary value larger than a small batch.
    static func items() -> [[String: AttributeValue?]] {
        (1...40).map { number in
            var item: [String: AttributeValue?] = [
                "sku": .string(String(format: "SKU-%04d", number)), "big": .integer(Int64(number) * -1_000_003),
            ]
            if number % 5 != 0 { item["ratio"] = .double(Double(number) / 4) }
            if number % 3 == 0 { item["data"] = .binary(Data((0..<(number * 100)).map { UInt8(($0 + number) % 251) })) }
            return item
        }
    }

    /// What the items read back should look like through ``describe(_:)``.
    static func expectedDescriptions() -> [String] {
        items().map { item in
            let sku = if case .string(let text)?? = item["sku"] { text } else { "?" }
            let big = if case .integer(let value)?? = item["big"] { "\(value)" } else { "null" }
            let ratio = if case .double(let value)?? = item["ratio"] { "\(value)" } else { "null" }
            let data = if case .binary(let bytes)?? = item["data"] { Self.summary(bytes) } else { "null" }
            return [sku, big, ratio, data].joined(separator: "|")
        }
    }

    static func summary<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        "\(bytes.count):\(bytes.reduce(0) { ($0 &* 31) &+ Int($1) })"
    }

    /// A row of sku, big, ratio and data, as text.
    static func describe<Row: ExportRow>(_ row: Row) -> String {
        let sku = row.withTextBytes(at: 0) { String(decoding: $0, as: UTF8.self) }
        let big = row.storageClass(at: 1) == .integer ? "\(row.int64(at: 1))" : "null"
        let ratio = row.storageClass(at: 2) == .real ? "\(row.double(at: 2))" : "null"
        let data = row.storageClass(at: 3) == .blob ? row.withBlobBytes(at: 3) { summary($0) } : "null"
        return [sku, big, ratio, data].joined(separator: "|")
    }

    static var request: FetchRequest {
        var request = FetchRequest(entityName: "Item", resultType: .dictionary)
        request.propertiesToFetch = ["sku", "big", "ratio", "data"]
        request.sortDescriptors = [FetchSortDescriptor(key: "sku", ascending: true)]
        return request
    }

    @Test(arguments: [1, 200, 4096, 1 << 20])
    func rowsReadThroughBatchesOfAnySizeArriveWholeAndInOrder(batchBytes: Int) async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertItems(Self.items())
        let (count, seen) = try await fixture.store.withReadSnapshot { snapshot in
            let rows = try snapshot.rows(of: Self.request)
            var seen: [String] = []
            let count = try RowBatchPipe(columnCount: 4, batchBytes: batchBytes, batchCount: 2).run(rows) { row in
                seen.append(Self.describe(row))
            }
            return (count, seen)
        }
        #expect(count == 40)
        #expect(seen == Self.expectedDescriptions())
    }

    @Test func aFormattingFailureStopsTheReadingBeforeTheEndAndIsThrown() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...200)
        let (formatted, rowsLeft) = try await fixture.store.withReadSnapshot { snapshot in
            let rows = try snapshot.rows(of: Self.request)
            var formatted = 0
            #expect(throws: Stop.self) {
                // One row per batch: the reader can be at most a few rows ahead when the third one fails.
                try RowBatchPipe(columnCount: 4, batchBytes: 1, batchCount: 2).run(rows) { _ in
                    formatted += 1
                    if formatted == 3 { throw Stop() }
                }
            }
            return (formatted, try rows.next())
        }
        #expect(formatted == 3)
        #expect(rowsLeft)
    }

    @Test func anExportWhoseFormattingFailsMidwayLeavesNoFile() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...500)
        // Row 300 refers to an external blob file that does not exist: the formatting thread fails there.
        let hash = String(repeating: "cd", count: 32)
        try fixture.execute("UPDATE Item SET data = 'ferry-blob:sha256:\(hash)' WHERE big = 300")
        let error = await #expect(throws: StoreError.self) {
            try await fixture.export(to: "items.csv") {
                $0.fields = ["sku", "data"]
                $0.sort = [FetchSortDescriptor(key: "sku", ascending: true)]
            }
        }
        #expect(error?.code == .fileNotFound)
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path)
        #expect(!left.contains { $0.contains("items.csv") })
    }
}
