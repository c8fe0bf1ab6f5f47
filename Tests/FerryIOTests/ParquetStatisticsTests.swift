import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// The footer's statistics (minimum, maximum, null count) as pyarrow reads them.
@Suite("Parquet statistics")
struct ParquetStatisticsTests {
    /// Big-endian two's complement of `value` in 16 bytes, as a FIXED_LEN_BYTE_ARRAY(16) decimal is stored.
    static func fixed16(_ value: Int128) -> String {
        hex((0..<16).map { UInt8(truncatingIfNeeded: value >> (8 * (15 - $0))) })
    }

    @Test("Each column's minimum, maximum and null count are its values' own, in its type's order")
    func statisticsOfEveryType() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("types.parquet").path
            let columns = ParquetTypesTests.columns
            try ParquetWriter(path: path, columns: columns).writeAll(ParquetTypesTests.rows)
            let pyarrow = try ParquetReaders.read(path).pyarrow
            let uuid = hex(ParquetTypesTests.uuidBytes)
            let huge = Int128(String(repeating: "9", count: 38)) ?? 0
            // name: (min, max, nulls); nil min and max: none recorded.
            let expected: [String: (String?, String?, Int)] = [
                // A value over 4096 bytes leaves the chunk without a minimum and maximum.
                "text": (nil, nil, 1),
                "key": ("", hex("k5"), 0),
                "blob": (nil, nil, 1),
                "small": ("-32768", "32767", 1),
                "medium": ("-2147483648", "2147483647", 1),
                "large": ("-9223372036854775808", "9223372036854775807", 1),
                "single": ("-3.4028234663852886e+38", "3.4028234663852886e+38", 1),
                "real": ("-1.7976931348623157e+308", "1.7976931348623157e+308", 1),
                "flag": ("false", "true", 1),
                "moment": ("-62135596800000000", "253402300799999999", 1),
                "id": (uuid, uuid, 3),
                "price": ("-999999999", "999999999", 1),
                "amount": ("-999999999999999999", "999999999999999999", 1),
                "huge": (Self.fixed16(-huge), Self.fixed16(huge), 1),
            ]
            for (index, column) in columns.enumerated() {
                let chunk = pyarrow.chunk(group: 0, column: index)
                guard let (min, max, nulls) = expected[column.name] else {
                    Issue.record("no expectation for \(column.name)")
                    continue
                }
                #expect(chunk["nullCount"] as? Int == nulls, "\(column.name)")
                #expect(chunk["hasMinMax"] as? Bool == (min != nil), "\(column.name)")
                #expect(chunk["min"] as? String == min, "\(column.name)")
                #expect(chunk["max"] as? String == max, "\(column.name)")
            }
        }
    }

    @Test("NaN is left out of floating-point statistics, and zero is −0 as a minimum and +0 as a maximum")
    func floatingPointStatistics() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("reals.parquet").path
            let columns = [
                ParquetColumn(name: "zeros", type: .double), ParquetColumn(name: "nans", type: .float),
                ParquetColumn(name: "mixed", type: .double),
            ]
            try ParquetWriter(path: path, columns: columns).writeAll([
                [.real(0.0), .real(.nan), .real(.nan)],
                [.real(-0.0), .real(.nan), .real(2.5)],
                [.real(0.0), .null, .real(-.infinity)],
            ])
            let readings = try expectBothReaders(
                path, columns: ["zeros", "nans", "mixed"],
                expected: [["0.0", "nan", "nan"], ["-0.0", "nan", "2.5"], ["0.0", nil, "-inf"]],
                floatColumns: ["zeros", "nans", "mixed"])
            let zeros = readings.pyarrow.chunk(group: 0, column: 0)
            #expect(zeros["min"] as? String == "-0.0")
            #expect(zeros["max"] as? String == "0.0")
            let nans = readings.pyarrow.chunk(group: 0, column: 1)
            #expect(nans["hasMinMax"] as? Bool == false)
            #expect(nans["nullCount"] as? Int == 1)
            let mixed = readings.pyarrow.chunk(group: 0, column: 2)
            #expect(mixed["min"] as? String == "-inf")
            #expect(mixed["max"] as? String == "2.5")
        }
    }

    @Test("Strings order by their UTF-8 bytes, so non-ASCII text sorts after ASCII")
    func stringOrder() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("strings.parquet").path
            let values = ["b", "é", "a", "Z", "ab", "😀", "中"]
            try ParquetWriter(path: path, columns: [ParquetColumn(name: "s", type: .string)])
                .writeAll(values.map { [.text($0)] })
            let chunk = try ParquetReaders.read(path).pyarrow.chunk(group: 0, column: 0)
            #expect(chunk["min"] as? String == hex("Z"))
            #expect(chunk["max"] as? String == hex("😀"))
        }
    }
}
