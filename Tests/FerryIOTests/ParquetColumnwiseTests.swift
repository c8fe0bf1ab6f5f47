import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// `ParquetWriter.writeRows(_:_:)` (column by column over runs of rows) against row-by-row writing, and the
/// chunk-start probe that writes nearly-all-distinct columns PLAIN without a dictionary.
@Suite("Parquet column-by-column writing and the dictionary probe")
struct ParquetColumnwiseTests {
    static let columns = ParquetConcurrencyTests.columns

    /// Writes `rows` through `writeRows` in runs of `batch` rows (the last one shorter) and finishes the file.
    static func writeColumnwise(_ rows: [[ParquetTestValue]], to writer: ParquetWriter, batch: Int) throws {
        var start = 0
        while start < rows.count {
            let end = min(start + batch, rows.count)
            try writer.writeRows(end - start) { column, offsets, values in
                for offset in offsets {
                    try Self.append(rows[start + offset][column], to: &values)
                }
            }
            start = end
        }
        try writer.finish()
    }

    static func append(_ value: ParquetTestValue, to values: inout ParquetColumnValues) throws {
        switch value {
        case .null: try values.appendNull()
        case .integer(let value): try values.append(integer: value)
        case .real(let value): try values.append(real: value)
        case .boolean(let value): try values.append(boolean: value)
        case .text(let value):
            var value = value
            try value.withUTF8 { try values.append(bytes: UnsafeRawBufferPointer($0)) }
        case .bytes(let value): try value.withUnsafeBytes { try values.append(bytes: $0) }
        case .decimal(let value):
            var value = value
            try value.withUTF8 { try values.append(decimalText: UnsafeRawBufferPointer($0)) }
        }
    }

    @Test(
        "Rows written column by column, in runs of any length, make the same file as rows written one by one",
        arguments: [1, 7, 1000, 5000])
    func sameBytesAsRowByRow(batch: Int) throws {
        try TestSupport.withTemporaryFolder { folder in
            let rows = ParquetConcurrencyTests.rows(40_000)
            let options = ParquetConcurrencyTests.options(.zstd, concurrently: true)
            let rowwise = folder.appendingPathComponent("rows.parquet").path
            let columnwise = folder.appendingPathComponent("columns.parquet").path
            try ParquetWriter(path: rowwise, columns: Self.columns, options: options).writeAll(rows)
            try Self.writeColumnwise(
                rows, to: try ParquetWriter(path: columnwise, columns: Self.columns, options: options), batch: batch)
            let rowBytes = try Data(contentsOf: URL(fileURLWithPath: rowwise))
            #expect(rowBytes.count > 40_000)
            #expect(rowBytes == (try Data(contentsOf: URL(fileURLWithPath: columnwise))))
            // Row groups end by their bytes (every 1024 rows) and by their row count, inside runs.
            let groupRows = try ParquetReaders.read(columnwise).pyarrow.rowGroups.map { $0["rows"] as? Int ?? 0 }
            #expect(groupRows.count >= 5, "\(groupRows)")
            #expect(groupRows.contains { $0 < 9000 && $0 % 1024 == 0 }, "\(groupRows)")
        }
    }

    @Test("A bad value written column by column names its own record")
    func failureNamesTheRecord() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("bad.parquet").path
            let writer = try ParquetWriter(
                path: path,
                columns: [ParquetColumn(name: "n", type: .int32), ParquetColumn(name: "s", type: .string, isOptional: false)])
            try writer.writeRows(2000) { column, rows, values in
                for row in rows {
                    if column == 0 { try values.append(integer: Int64(row)) } else { try values.append(bytes: .init(start: nil, count: 0)) }
                }
            }
            #expect(writer.rowCount == 2000)
            let error = #expect(throws: FerryIOError.self) {
                try writer.writeRows(10) { column, rows, values in
                    for row in rows {
                        if column == 0 { try values.append(integer: Int64(row)) } else if row == 6 {
                            try values.appendNull()
                        } else {
                            try values.append(bytes: .init(start: nil, count: 0))
                        }
                    }
                }
            }
            #expect(error?.code == .invalidValue)
            #expect(error?.record == 2007, "\(String(describing: error))")
            #expect(error?.message.contains("column s is required") == true, "\(String(describing: error))")
        }
    }

    @Test(
        "A chunk whose first 4096 values are nine in ten distinct is PLAIN without a dictionary page; a repeating one keeps its dictionary"
    )
    func probeDecidesPerChunk() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("probe.parquet").path
            var options = ParquetWriter.Options()
            options.rowGroupRows = 20_000
            let count = 40_000
            // Column 0: distinct in the first row group, 50 values in the second. Column 1: 3000 values, so 4096 of
            // them hold about three in four distinct (a dictionary pays). Column 2: distinct numbers, nulls between.
            let text = { (row: Int) in row < 20_000 ? "key-\(row * 7919 % 1_000_003)" : "again-\(row % 50)" }
            let number = { (row: Int) in Int64(row * 7919 % 3000) }
            let real = { (row: Int) in row % 9 == 0 ? nil : Double(row) / 3 }
            let rows: [[ParquetTestValue]] = (0..<count).map { row in
                [.text(text(row)), .integer(number(row)), real(row).map { .real($0) } ?? .null]
            }
            try ParquetWriter(
                path: path,
                columns: [
                    ParquetColumn(name: "s", type: .string, isOptional: false), ParquetColumn(name: "n", type: .int64),
                    ParquetColumn(name: "r", type: .double),
                ],
                options: options
            ).writeAll(rows)
            let readings = try expectBothReaders(
                path, columns: ["s", "n", "r"],
                expected: (0..<count).map { [text($0), "\(number($0))", real($0).map { "\($0)" }] })
            let reading = readings.pyarrow
            func chunk(_ group: Int, _ column: Int) -> (dictionary: Bool, encodings: [String]) {
                let chunk = reading.chunk(group: group, column: column)
                return (chunk["hasDictionaryPage"] as? Bool ?? true, chunk["encodings"] as? [String] ?? [])
            }
            #expect(chunk(0, 0).dictionary == false)
            #expect(chunk(0, 0).encodings.contains("RLE_DICTIONARY") == false, "\(chunk(0, 0).encodings)")
            #expect(chunk(1, 0).dictionary == true)
            #expect(chunk(1, 0).encodings.contains("PLAIN") && chunk(1, 0).encodings.contains("RLE_DICTIONARY"))
            for group in 0..<2 {
                #expect(chunk(group, 1).dictionary == true)
                #expect(chunk(group, 2).dictionary == false)
                #expect(chunk(group, 2).encodings.contains("RLE_DICTIONARY") == false)
            }
            // The PLAIN chunk's statistics still cover every value.
            let statistics = reading.chunk(group: 0, column: 0)
            let keys = (0..<20_000).map { text($0) }
            #expect(statistics["min"] as? String == hex(keys.min() ?? ""), "\(statistics)")
            #expect(statistics["max"] as? String == hex(keys.max() ?? ""), "\(statistics)")
        }
    }
}
