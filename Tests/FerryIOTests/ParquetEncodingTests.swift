import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// Dictionary encoding and its fall-back to PLAIN, page and row-group boundaries, and definition levels in every
/// pattern, each read back by pyarrow and DuckDB.
@Suite("Parquet encodings")
struct ParquetEncodingTests {
    @Test("Repeated values are dictionary-encoded behind a dictionary page")
    func dictionaryEncoding() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("dictionary.parquet").path
            let rows: [[ParquetTestValue]] = (0..<10_000).map { [.text("category-\($0 % 10)"), .integer(Int64($0 % 3))] }
            try ParquetWriter(
                path: path, columns: [ParquetColumn(name: "s", type: .string), ParquetColumn(name: "n", type: .int64)]
            ).writeAll(rows)
            let readings = try expectBothReaders(
                path, columns: ["s", "n"], expected: (0..<10_000).map { ["category-\($0 % 10)", "\($0 % 3)"] })
            for column in 0..<2 {
                let chunk = readings.pyarrow.chunk(group: 0, column: column)
                #expect(chunk["hasDictionaryPage"] as? Bool == true)
                #expect((chunk["encodings"] as? [String])?.contains("RLE_DICTIONARY") == true)
            }
            // Ten strings and three integers take far less than the values would.
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 < 4000)
        }
    }

    @Test("A dictionary past its limit falls back to PLAIN pages after the dictionary-encoded ones")
    func dictionaryFallback() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("fallback.parquet").path
            var options = ParquetWriter.Options()
            options.dictionaryBytes = 2000
            options.pageBytes = 256
            let count = 3000
            let text = { (row: Int) in row % 7 == 0 ? nil : "value-\(row)" }
            let rows: [[ParquetTestValue]] = (0..<count).map { row in
                [text(row).map { .text($0) } ?? .null, .integer(Int64(row) * 1_000_003)]
            }
            try ParquetWriter(
                path: path, columns: [ParquetColumn(name: "s", type: .string), ParquetColumn(name: "n", type: .int64)],
                options: options
            ).writeAll(rows)
            let readings = try expectBothReaders(
                path, columns: ["s", "n"], expected: (0..<count).map { [text($0), "\(Int64($0) * 1_000_003)"] })
            for column in 0..<2 {
                let chunk = readings.pyarrow.chunk(group: 0, column: column)
                #expect(chunk["hasDictionaryPage"] as? Bool == true)
                let encodings = chunk["encodings"] as? [String] ?? []
                #expect(encodings.contains("RLE_DICTIONARY") && encodings.contains("PLAIN"), "\(encodings)")
            }
        }
    }

    @Test("Without dictionaries every page is PLAIN and there is no dictionary page")
    func plainOnly() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("plain.parquet").path
            var options = ParquetWriter.Options()
            options.usesDictionary = false
            try ParquetWriter(path: path, columns: [ParquetColumn(name: "s", type: .string)], options: options)
                .writeAll((0..<100).map { [.text("x\($0 % 2)")] })
            let readings = try expectBothReaders(path, columns: ["s"], expected: (0..<100).map { ["x\($0 % 2)"] })
            let chunk = readings.pyarrow.chunk(group: 0, column: 0)
            #expect(chunk["hasDictionaryPage"] as? Bool == false)
            #expect(!((chunk["encodings"] as? [String])?.contains("RLE_DICTIONARY") ?? true))
        }
    }

    @Test("Rows split into row groups of the configured size, each with its own statistics and dictionary")
    func rowGroups() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("groups.parquet").path
            var options = ParquetWriter.Options()
            options.rowGroupRows = 1000
            let rows: [[ParquetTestValue]] = (0..<3500).map { [.integer(Int64($0)), .text("g\($0 / 1000)")] }
            try ParquetWriter(
                path: path,
                columns: [ParquetColumn(name: "n", type: .int32, isOptional: false), ParquetColumn(name: "s", type: .string)],
                options: options
            ).writeAll(rows)
            let readings = try expectBothReaders(
                path, columns: ["n", "s"], expected: (0..<3500).map { ["\($0)", "g\($0 / 1000)"] })
            let groups = readings.pyarrow.rowGroups
            #expect(groups.map { $0["rows"] as? Int ?? -1 } == [1000, 1000, 1000, 500])
            for group in groups.indices {
                let numbers = readings.pyarrow.chunk(group: group, column: 0)
                #expect(numbers["min"] as? String == "\(group * 1000)")
                #expect(numbers["max"] as? String == "\(min(group * 1000 + 999, 3499))")
                #expect(readings.pyarrow.chunk(group: group, column: 1)["min"] as? String == hex("g\(group)"))
            }
        }
    }

    @Test("Nulls in runs, alternating and scattered, across many small pages, keep their rows", arguments: [1, 7, 64])
    func definitionLevels(pageValues: Int) throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("levels.parquet").path
            var options = ParquetWriter.Options()
            options.pageBytes = pageValues * 8
            var generator = SystemRandomNumberGenerator()
            // Runs of nulls and values of every length around the encoder's groups of eight.
            var pattern: [Bool] = []
            for length in [1, 2, 7, 8, 9, 15, 16, 17, 100] {
                pattern += Array(repeating: true, count: length) + Array(repeating: false, count: length)
            }
            pattern += (0..<500).map { $0 % 2 == 0 }
            pattern += (0..<500).map { _ in Bool.random(using: &generator) }
            let rows: [[ParquetTestValue]] = pattern.enumerated().map { row, isNull in
                isNull ? [.null, .null, .null] : [.integer(Int64(row)), .text("t\(row % 13)"), .boolean(row % 3 == 0)]
            }
            try ParquetWriter(
                path: path,
                columns: [
                    ParquetColumn(name: "n", type: .int64), ParquetColumn(name: "s", type: .string),
                    ParquetColumn(name: "b", type: .boolean),
                ],
                options: options
            ).writeAll(rows)
            let expected: [[String?]] = pattern.enumerated().map { row, isNull in
                isNull ? [nil, nil, nil] : ["\(row)", "t\(row % 13)", row % 3 == 0 ? "true" : "false"]
            }
            let readings = try expectBothReaders(path, columns: ["n", "s", "b"], expected: expected)
            #expect(readings.pyarrow.chunk(group: 0, column: 0)["nullCount"] as? Int == pattern.filter { $0 }.count)
        }
    }

    @Test("Column chunks larger than the memory kept for them go through a spill file, row group after row group")
    func spilledChunks() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("spilled.parquet").path
            var options = ParquetWriter.Options()
            options.compression = .uncompressed
            options.usesDictionary = false
            options.rowGroupRows = 60_000
            let count = 150_000
            // 60,000 distinct strings of about 20 bytes: over a megabyte per chunk, four times what stays in memory.
            let text = { (row: Int) in "row-\(row)-\(String(repeating: "x", count: row % 17))" }
            try ParquetWriter(path: path, columns: [ParquetColumn(name: "s", type: .string)], options: options)
                .writeAll((0..<count).map { [.text(text($0))] })
            let readings = try expectBothReaders(path, columns: ["s"], expected: (0..<count).map { [text($0)] })
            #expect(readings.pyarrow.rowGroups.map { $0["rows"] as? Int ?? -1 } == [60_000, 60_000, 30_000])
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["spilled.parquet"])
        }
    }

    @Test("A file without rows has the schema and no row group")
    func emptyFile() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("empty.parquet").path
            try ParquetWriter(path: path, columns: [ParquetColumn(name: "s", type: .string)]).writeAll([])
            let readings = try ParquetReaders.read(path)
            #expect(readings.pyarrow.rows == 0)
            #expect(readings.duckdb.rows == 0)
            #expect(readings.pyarrow.rowGroups.isEmpty)
            #expect(readings.duckdb.types["s"] == "VARCHAR")
        }
    }
}
