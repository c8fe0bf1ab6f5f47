import FerryIO
import FerryStore
import FerryTestSupport
import Foundation
import Synchronization
import Testing

@testable import FerryPipeline

/// A partitioned export sets its rows aside by partition (``PartitionBuckets``) and, past its partition limit,
/// reads them sorted by partition instead: both ways make the same files.
struct PartitionedExportTests {
    /// 3,000 items: `small` is the item's number modulo 7 (null for every eleventh), `active` alternates, `big` is
    /// the number, `sku` pads to 120 bytes.
    private func fixture() async throws -> ExportFixture {
        let fixture = try await ExportFixture()
        let padding = String(repeating: "x", count: 110)
        var items: [[String: AttributeValue?]] = []
        for number in 1...3000 {
            var item: [String: AttributeValue?] = [:]
            item["sku"] = .string(String(format: "SKU-%05d-", number) + padding)
            item["small"] = number % 11 == 0 ? .some(nil) : .integer(Int64(number % 7))
            item["active"] = .boolean(number % 2 == 0)
            item["big"] = .integer(Int64(number))
            item["ratio"] = .double(Double(number) / 8)
            items.append(item)
        }
        try await fixture.insertItems(items)
        return fixture
    }

    @Test(arguments: [nil, "-big"])
    func rowsSetAsideByPartitionMakeTheFilesRowsSortedByPartitionMake(sort: String?) async throws {
        let fixture = try await fixture()
        func export(_ output: String, partitionLimit: Int) async throws -> Exporter.Result {
            var spec = ExportSpec(entity: "Item", output: fixture.file(output))
            spec.format = .parquet
            spec.partitionBy = ["small", "active"]
            spec.fields = ["sku", "big", "ratio"]
            spec.sort = try sort.map(ExportSpec.sortDescriptors(parsing:)) ?? []
            spec.parquet.rowGroupRows = 100
            var exporter = Exporter(store: fixture.store)
            exporter.partitionLimit = partitionLimit
            return try await exporter.export(spec)
        }
        let setAside = try await export("aside", partitionLimit: 10_000)
        // No partition fits a limit of 0: the export reads the rows again, sorted.
        let sorted = try await export("sorted", partitionLimit: 0)

        #expect(setAside.rows == 3000 && sorted.rows == 3000)
        let files = try #require(setAside.manifest?.files)
        #expect(files.count == 16, "\(files.map(\.path))")  // 7 values and null, each active or not
        #expect(files.contains { $0.path == "small=__HIVE_DEFAULT_PARTITION__/active=true/part-00000.parquet" })
        #expect(Set(files) == Set(sorted.manifest?.files ?? []))
        #expect(files.map(\.path) == files.map(\.path).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        for file in files {
            let aside = try Data(contentsOf: URL(fileURLWithPath: fixture.file("aside/" + file.path)))
            let again = try Data(contentsOf: URL(fileURLWithPath: fixture.file("sorted/" + file.path)))
            #expect(aside == again, "\(file.path)")
        }
        // Within a partition, rows keep the export's order.
        let reading = try ParquetReaders.read(fixture.file("aside/small=3/active=false/part-00000.parquet"))
        let numbers = reading.pyarrow.column("big").compactMap { $0.flatMap { Int($0) } }
        let expected = (1...3000).filter { $0 % 11 != 0 && $0 % 7 == 3 && $0 % 2 == 1 }
        #expect(numbers == (sort == nil ? expected : expected.reversed()))
    }

    /// Different stored values that make the same folder share its file: an empty string and null; a date stored as
    /// a real and the same date stored as an integer (as another writer may have left it).
    @Test func storedValuesThatMakeTheSameFolderShareItsFile() async throws {
        let fixture = try await ExportFixture()
        try await fixture.insertNumberedItems(1...4)
        try fixture.execute(
            "UPDATE Item SET link = NULL, seen_at = 0.0 WHERE big = 1; UPDATE Item SET link = '', seen_at = 0 WHERE "
                + "big = 2; UPDATE Item SET link = 'x', seen_at = 0 WHERE big = 3; UPDATE Item SET link = 'x', "
                + "seen_at = 0.0 WHERE big = 4")
        var spec = ExportSpec(entity: "Item", output: fixture.file("dataset"))
        spec.format = .parquet
        spec.partitionBy = ["link", "seen_at"]
        spec.fields = ["big"]
        let result = try await Exporter(store: fixture.store).export(spec)
        let files = try #require(result.manifest?.files)
        let date = "seen_at=1970-01-01T00%3A00%3A00Z/part-00000.parquet"
        #expect(files.map(\.path) == ["link=__HIVE_DEFAULT_PARTITION__/" + date, "link=x/" + date])
        #expect(files.map(\.rows) == [2, 2])
    }

    /// Rows set aside are reported as read, then as their partitions' files are written, every fetch batch and when
    /// the last file is done; rows read sorted by partition are written as they come, and reported once. An export
    /// of no rows reports nothing.
    @Test func progressReportsTheRowsReadThenThePartitionFilesWritten() async throws {
        let fixture = try await fixture()
        func reports(partitionLimit: Int, predicate: String? = nil) async throws -> [ExportProgress] {
            var spec = ExportSpec(entity: "Item", output: fixture.file("dataset-\(partitionLimit)"))
            spec.predicate = predicate
            spec.format = .parquet
            spec.partitionBy = ["active"]
            spec.fields = ["sku", "big"]
            spec.fetchBatchSize = 1000
            var exporter = Exporter(store: fixture.store)
            exporter.partitionLimit = partitionLimit
            let reported = Mutex<[ExportProgress]>([])
            try await exporter.export(spec) { progress in reported.withLock { $0.append(progress) } }
            return reported.withLock { $0 }
        }
        // Two partitions of 1,500 rows, written active=false first.
        #expect(
            try await reports(partitionLimit: 10_000) == [
                .rows(1000), .rows(2000), .rows(3000),
                .partitionFiles(written: 0, of: 2, rowsWritten: 0, rows: 3000),
                .partitionFiles(written: 0, of: 2, rowsWritten: 1000, rows: 3000),
                .partitionFiles(written: 1, of: 2, rowsWritten: 2000, rows: 3000),
                .partitionFiles(written: 1, of: 2, rowsWritten: 3000, rows: 3000),
                .partitionFiles(written: 2, of: 2, rowsWritten: 3000, rows: 3000),
            ])
        #expect(try await reports(partitionLimit: 0) == [.rows(1000), .rows(2000), .rows(3000)])
        // No rows, no files to report.
        #expect(try await reports(partitionLimit: 10_000, predicate: "big < 0") == [])
    }

    /// Chunks of 1 KiB and 4 KiB in memory at most, so rows go to the file both ways, many times; then chunks smaller
    /// than a row (each row a chunk of its own) read into a batch smaller than a row, which grows.
    @Test(arguments: [(1024, 512), (128, 64)])
    func setAsideRowsComeBackInOrderFromMemoryAndFromTheScratchFile(chunkBytes: Int, batchBytes: Int) async throws {
        let fixture = try await fixture()
        let folder = fixture.file("")
        let matched = try await fixture.store.withReadSnapshot { snapshot in
            var request = FetchRequest(entityName: "Item", resultType: .dictionary)
            request.propertiesToFetch = ["big", "sku", "small"]
            let rows = try snapshot.rows(of: request)
            let all = RowBatch(columnCount: rows.columns.count, byteCount: 4 << 20)
            while try rows.next() { #expect(all.append(rows)) }
            let buckets = try PartitionBuckets(
                beside: folder + "/rows", reportedAs: folder, partitionLimit: 5, chunkBytes: chunkBytes,
                memoryLimit: 4096)
            var expected: [[[UInt8]]] = Array(repeating: [], count: 5)
            for index in 0..<all.rowCount {
                let row = all.row(at: index)
                let partition = Int(row.int64(at: 0) % 5)
                expected[partition].append(Array(row.bytes))
                try buckets.add(row, toPartition: try buckets.partition(ofKey: Array("p\(partition)/".utf8)))
            }
            #expect(throws: PartitionBuckets.TooManyPartitions.self) {
                try buckets.add(all.row(at: 0), toPartition: try buckets.partition(ofKey: Array("p5/".utf8)))
            }
            let batch = RowBatch(columnCount: rows.columns.count, byteCount: batchBytes)
            var matched = 0
            for (index, key) in buckets.partitionKeys.enumerated() {
                let partition = Int(String(decoding: key.dropFirst().dropLast(), as: UTF8.self))!
                var got: [[UInt8]] = []
                try buckets.forEachBatch(ofPartition: index, in: batch) { batch in
                    batch.forEachRow { got.append(Array($0.bytes)) }
                }
                #expect(got == expected[partition], "partition \(partition)")
                matched += got.count
            }
            return matched
        }
        #expect(matched == 3000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains("ferry-tmp") }.isEmpty)
    }
}
