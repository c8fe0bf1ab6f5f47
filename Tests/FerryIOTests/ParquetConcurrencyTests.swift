import Foundation
import Synchronization
import Testing

@testable import FerryIO
import FerryTestSupport

/// Pages compressed on worker threads, several at once (the default), against pages compressed in turn on the writing
/// thread: the same file, byte for byte, whatever the codec, the page and row-group boundaries, the dictionary
/// fall-back and the order in which pages finish compressing.
@Suite("Parquet page compression on worker threads")
struct ParquetConcurrencyTests {
    static let columns = [
        ParquetColumn(name: "sku", type: .string, isOptional: false),
        ParquetColumn(name: "category", type: .string),
        ParquetColumn(name: "price", type: .double),
        ParquetColumn(name: "quantity", type: .int32),
        ParquetColumn(name: "active", type: .boolean),
        ParquetColumn(name: "created", type: .timestampMicros),
    ]

    /// Rows whose `sku` outgrows a small dictionary (PLAIN pages follow) and whose other columns repeat or are null.
    static func rows(_ count: Int) -> [[ParquetTestValue]] {
        (0..<count).map(row)
    }

    static func row(_ row: Int) -> [ParquetTestValue] {
        let sku: ParquetTestValue = .text("SKU-\(row * 7919 % 1_000_003)")
        let category: ParquetTestValue = row % 11 == 0 ? .null : .text("category \(row % 23)")
        let price: ParquetTestValue = row % 5 == 0 ? .null : .real(Double(row % 1000) / 8)
        let quantity: ParquetTestValue = .integer(Int64(row % 300))
        let active: ParquetTestValue = .boolean(row % 3 == 0)
        let micros = Int64(1_700_000_000_000_000) + Int64(row) * 1_000_003
        let created: ParquetTestValue = row % 13 == 0 ? .null : .integer(micros)
        return [sku, category, price, quantity, active, created]
    }

    /// Small pages, dictionaries and row groups, so that one file has many of each.
    static func options(_ compression: ParquetCompression, concurrently: Bool) -> ParquetWriter.Options {
        var options = ParquetWriter.Options()
        options.compression = compression
        options.pageBytes = 4096
        options.dictionaryBytes = 16 * 1024
        options.rowGroupRows = 9000
        options.rowGroupBytes = 96 * 1024
        options.compressesConcurrently = concurrently
        return options
    }

    @Test(
        "Pages compressed on worker threads make the same file as pages compressed in turn",
        arguments: ParquetCompression.allCases)
    func sameBytes(compression: ParquetCompression) throws {
        try TestSupport.withTemporaryFolder { folder in
            let rows = Self.rows(40_000)
            let inTurn = folder.appendingPathComponent("in-turn.parquet").path
            let concurrent = folder.appendingPathComponent("concurrent.parquet").path
            try ParquetWriter(path: inTurn, columns: Self.columns, options: Self.options(compression, concurrently: false))
                .writeAll(rows)
            try ParquetWriter(
                path: concurrent, columns: Self.columns, options: Self.options(compression, concurrently: true)
            ).writeAll(rows)
            let inTurnBytes = try Data(contentsOf: URL(fileURLWithPath: inTurn))
            let concurrentBytes = try Data(contentsOf: URL(fileURLWithPath: concurrent))
            #expect(inTurnBytes.count > 40_000)
            #expect(inTurnBytes == concurrentBytes)

            // The file has what the comparison is about: row groups ended by their bytes (checked every 1024 rows)
            // and dictionary pages followed by PLAIN ones.
            let reading = try ParquetReaders.read(concurrent).pyarrow
            #expect(reading.rows == rows.count)
            let groupRows = reading.rowGroups.map { $0["rows"] as? Int ?? 0 }
            #expect(groupRows.count >= 5, "\(groupRows)")
            #expect(groupRows.contains { $0 < 9000 && $0 % 1024 == 0 }, "\(groupRows)")
            let encodings = reading.chunk(group: 0, column: 0)["encodings"] as? [String] ?? []
            #expect(encodings.contains("RLE_DICTIONARY") && encodings.contains("PLAIN"), "\(encodings)")
        }
    }

    @Test("A file written with worker threads reads back value by value in both readers")
    func readsBack() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("values.parquet").path
            let count = 20_000
            try ParquetWriter(
                path: path, columns: [Self.columns[0], Self.columns[1], Self.columns[3]],
                options: Self.options(.zstd, concurrently: true)
            ).writeAll(Self.rows(count).map { [$0[0], $0[1], $0[3]] })
            let expected: [[String?]] = (0..<count).map { (row: Int) -> [String?] in
                let category: String? = row % 11 == 0 ? nil : "category \(row % 23)"
                return ["SKU-\(row * 7919 % 1_000_003)", category, "\(row % 300)"]
            }
            _ = try expectBothReaders(path, columns: ["sku", "category", "quantity"], expected: expected)
        }
    }

    /// Rows whose first column makes one large page per value (slow to compress) and whose second makes small pages
    /// (quick): later pages finish compressing before earlier ones and must still reach their chunks in order.
    @Test("Pages that finish compressing out of order reach the file in the order they were written")
    func outOfOrderCompletion() throws {
        try TestSupport.withTemporaryFolder { folder in
            let columns = [
                ParquetColumn(name: "text", type: .string, isOptional: false),
                ParquetColumn(name: "flag", type: .boolean, isOptional: false),
            ]
            var generator = SystemRandomNumberGenerator()
            // Long text that compresses slowly (little repetition), then a boolean.
            let texts = (0..<300).map { row in
                let bytes = (0..<(row % 3 == 0 ? 60_000 : 300)).map { _ in
                    UInt8.random(in: 0x21...0x7E, using: &generator)
                }
                return String(decoding: bytes, as: UTF8.self)
            }
            let rows: [[ParquetTestValue]] = texts.indices.map { [.text(texts[$0]), .boolean($0 % 2 == 0)] }
            var options = Self.options(.zstd, concurrently: false)
            options.usesDictionary = false
            let inTurn = folder.appendingPathComponent("in-turn.parquet").path
            let concurrent = folder.appendingPathComponent("concurrent.parquet").path
            try ParquetWriter(path: inTurn, columns: columns, options: options).writeAll(rows)
            options.compressesConcurrently = true
            try ParquetWriter(path: concurrent, columns: columns, options: options).writeAll(rows)
            let inTurnBytes = try Data(contentsOf: URL(fileURLWithPath: inTurn))
            #expect(inTurnBytes.count > 100 * 40_000)
            #expect(inTurnBytes == (try Data(contentsOf: URL(fileURLWithPath: concurrent))))
            // The text chunk (about 5 MB) outgrew its memory and went through its spill file: both readers read it.
            _ = try expectBothReaders(concurrent, columns: ["text"], expected: texts.map { [$0] })
        }
    }

    /// A chunk whose spill file cannot be created fails the page added to it; the pages after it are dropped, the
    /// failure reaches the owner, and every buffer comes back (taking one never waits forever).
    @Test("A page that cannot reach its chunk fails the queue without losing a buffer", arguments: [false, true])
    func failureReachesTheOwner(concurrently: Bool) throws {
        try TestSupport.withTemporaryFolder { folder in
            let queue = ParquetPageQueue(
                compression: .zstd, level: 1, concurrent: concurrently, columns: 2, pageBytes: 4096)
            let good = ParquetChunkBuffer(outputPath: folder.appendingPathComponent("good.parquet").path)
            let unwritable = ParquetChunkBuffer(
                outputPath: folder.appendingPathComponent("missing/bad.parquet").path, memoryLimit: 0)
            var goodPages = 0
            var failures = 0
            for page in 0..<(ParquetPageQueue.buffersInFlight * 4) {
                let buffer = queue.takeBuffer()
                buffer.bytes.append(contentsOf: repeatElement(UInt8(page), count: 3000))
                do {
                    try queue.submit(buffer, to: page == 5 ? unwritable : good, valueCount: 3000, encoding: 0)
                    if page < 5 { goodPages += 1 }
                } catch let error as FerryIOError {
                    failures += 1
                    #expect(error.code == .io, "\(error)")
                }
            }
            #expect(throws: FerryIOError.self) { try queue.pagesHandedOver().wait() }
            #expect(goodPages == 5)
            // Submitting on the caller's thread throws for the failing page itself; on workers, for a later one.
            #expect(failures >= 1)
            // Only the five pages before the failing one reached their chunk: each is a header and a few bytes.
            #expect(good.count > 0 && good.count < 5 * 100, "\(good.count)")
            #expect(unwritable.count == 0)
        }
    }

    /// A writer finishing files in the background ends a row group at every file's end, handing over a page per
    /// column at once: the queue then lets a page per column and two more be in flight, where a single file keeps
    /// to ``ParquetPageQueue/buffersInFlight``.
    @Test func aQueueForFilesThatEndOftenTakesAPagePerColumnAndTwoMore() throws {
        let columns = ParquetPageQueue.buffersInFlight + 3
        let queue = ParquetPageQueue(compression: .zstd, level: 1, concurrent: true, columns: columns, pageBytes: 4096)
        queue.allowPagesForFileEnds()
        try TestSupport.withTemporaryFolder { folder in
            let chunk = ParquetChunkBuffer(outputPath: folder.appendingPathComponent("pages.parquet").path)
            // Taken on another thread: were there fewer buffers, the last take would wait until a page came back.
            let taken = Mutex<[ParquetPageBuffer]>([])
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                for _ in 0..<(columns + 2) {
                    let buffer = queue.takeBuffer()
                    taken.withLock { $0.append(buffer) }
                }
                done.signal()
            }
            // On a timeout the taking thread stays blocked, and keeps the queue (and its semaphore) alive.
            try #require(done.wait(timeout: .now() + 60) == .success)
            for buffer in taken.withLock({ $0 }) {
                buffer.bytes.append(contentsOf: repeatElement(UInt8(7), count: 100))
                try queue.submit(buffer, to: chunk, valueCount: 100, encoding: 0)
            }
            try queue.pagesHandedOver().wait()
            #expect(taken.withLock { $0.count } == columns + 2)
        }
    }
}
