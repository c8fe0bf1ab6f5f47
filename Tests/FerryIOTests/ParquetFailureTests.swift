import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// Values a column cannot hold and outputs that cannot be written: a clear error, and no file left behind.
@Suite("Parquet writer failures")
struct ParquetFailureTests {
    /// Writes `value` as the only value of a one-column file and returns the error, checking that no file, and no
    /// temporary file, is left in the folder.
    func failure(writing value: ParquetTestValue, to column: ParquetColumn) throws -> FerryIOError? {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("bad.parquet").path
            var caught: FerryIOError?
            do {
                let writer = try ParquetWriter(path: path, columns: [column])
                try writer.writeAll([[value]])
            } catch let error as FerryIOError {
                caught = error
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
            return caught
        }
    }

    @Test("A null in a required column is refused, naming the column and the row")
    func nullInRequiredColumn() throws {
        let error = try failure(writing: .null, to: ParquetColumn(name: "sku", type: .string, isOptional: false))
        #expect(error?.code == .invalidValue)
        #expect(error?.message == "column sku is required and cannot hold a null")
        #expect(error?.record == 1)
    }

    @Test("An integer outside a 16- or 32-bit column is refused")
    func integerOutOfRange() throws {
        let small = try failure(writing: .integer(40_000), to: ParquetColumn(name: "qty", type: .int16))
        #expect(small?.code == .invalidValue)
        let medium = try failure(writing: .integer(1 << 31), to: ParquetColumn(name: "qty", type: .int32))
        #expect(medium?.code == .invalidValue)
    }

    @Test(
        "A decimal with more digits than its precision or scale allows, or no number at all, is refused",
        arguments: [
            ("10000000.00", 9, 2, "holds decimals of at most 9 digits and a value has more"),
            ("-99999999999999999999999999999", 38, 10, "holds decimals of at most 38 digits and a value has more"),
            ("0.001", 9, 2, "holds decimals with 2 digits after the point and a value has more"),
            ("12.5x", 9, 2, "holds decimals and a value is not a decimal number"),
            ("", 9, 2, "holds decimals and a value is not a decimal number"),
            ("1e20", 20, 2, "holds decimals of at most 20 digits and a value has more"),
            ("10", 1, 0, "holds decimals of at most 1 digit and a value has more"),
            ("0.05", 1, 1, "holds decimals with 1 digit after the point and a value has more"),
        ])
    func decimalOutOfRange(text: String, precision: Int, scale: Int, message: String) throws {
        let error = try failure(
            writing: .decimal(text), to: ParquetColumn(name: "price", type: .decimal(precision: precision, scale: scale)))
        #expect(error?.code == .invalidValue)
        #expect(error?.message == "column price \(message)")
    }

    @Test("Decimals at their limits, with trailing zeros past the scale or an exponent, are exact")
    func decimalLimits() throws {
        let cases: [(String, Int, Int, Int128)] = [
            ("999999999", 9, 0, 999_999_999), ("-9.99999999", 9, 8, -999_999_999), ("1.10", 9, 1, 11),
            ("1.5e2", 9, 2, 15000), ("-0", 9, 2, 0), ("+7", 18, 0, 7), ("123e-2", 9, 2, 123),
            (String(repeating: "9", count: 38), 38, 0, Int128(String(repeating: "9", count: 38)) ?? 0),
            ("-" + String(repeating: "9", count: 28) + "." + String(repeating: "9", count: 10), 38, 10,
                -(Int128(String(repeating: "9", count: 38)) ?? 0)),
        ]
        for (text, precision, scale, expected) in cases {
            var text = text
            let value = try text.withUTF8 {
                try ParquetDecimal.unscaled(UnsafeRawBufferPointer($0), precision: precision, scale: scale)
            }
            #expect(value == expected, "\(text)")
        }
    }

    @Test("An output in a folder that does not exist is refused before anything is written")
    func missingFolder() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("no/such/folder/x.parquet").path
            #expect {
                _ = try ParquetWriter(path: path, columns: [ParquetColumn(name: "s", type: .string)])
            } throws: { error in
                (error as? FerryIOError)?.code == .fileNotFound
            }
        }
    }

    @Test("A writer dropped before finishing leaves no file and no temporary file")
    func abandonedWriter() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("partial.parquet").path
            do {
                var options = ParquetWriter.Options()
                options.rowGroupRows = 10
                let writer = try ParquetWriter(
                    path: path, columns: [ParquetColumn(name: "n", type: .int64)], options: options)
                for row in 0..<100 {
                    try writer.write(integer: Int64(row))
                    try writer.endRow()
                }
                #expect(writer.bytesWritten > 4)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }
}
