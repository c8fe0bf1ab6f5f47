import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// One value of a test row, written with the call for its column's type.
enum ParquetTestValue {
    case null
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case text(String)
    case bytes([UInt8])
    case decimal(String)

    /// Writes the value as the writer's next one.
    func write(to writer: ParquetWriter) throws {
        switch self {
        case .null: try writer.writeNull()
        case .integer(let value): try writer.write(integer: value)
        case .real(let value): try writer.write(real: value)
        case .boolean(let value): try writer.write(boolean: value)
        case .text(let value): try writer.write(string: value)
        case .bytes(let value): try value.withUnsafeBytes { try writer.write(bytes: $0) }
        case .decimal(let value):
            var value = value
            try value.withUTF8 { try writer.write(decimalText: UnsafeRawBufferPointer($0)) }
        }
    }
}

extension ParquetWriter {
    /// Writes `rows` (one value per column each) and finishes the file.
    func writeAll(_ rows: [[ParquetTestValue]]) throws {
        try writeEach(rows)
        try finish()
    }

    /// Writes `rows`, each value with the call for its kind, leaving the file open.
    func writeEach(_ rows: [[ParquetTestValue]]) throws {
        for row in rows {
            for value in row { try value.write(to: self) }
            try endRow()
        }
    }
}

/// Lowercase hex of `bytes`, as the readers print binaries.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// Hex of a string's UTF-8, as the readers print byte-array statistics.
func hex(_ text: String) -> String { hex(Array(text.utf8)) }

/// Reads `path` with both readers and checks that each saw `expected` values in every column, in order;
/// floating-point text is compared as numbers (the readers print Python's shortest text).
func expectBothReaders(
    _ path: String, columns: [String], expected: [[String?]], floatColumns: Set<String> = [],
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (pyarrow: ToolReading, duckdb: ToolReading) {
    let readings = try ParquetReaders.read(path)
    for (reader, reading) in [("pyarrow", readings.pyarrow), ("duckdb", readings.duckdb)] {
        #expect(reading.rows == expected.count, "\(reader) row count", sourceLocation: sourceLocation)
        for (index, name) in columns.enumerated() {
            let seen = reading.column(name)
            let wanted = expected.map { $0[index] }
            guard seen.count == wanted.count else {
                Issue.record("\(reader) read \(seen.count) values of \(name), not \(wanted.count)",
                    sourceLocation: sourceLocation)
                continue
            }
            for row in wanted.indices where !sameValue(seen[row], wanted[row], asNumber: floatColumns.contains(name)) {
                let read = String(String(describing: seen[row]).prefix(80))
                let expected = String(String(describing: wanted[row]).prefix(80))
                Issue.record(
                    "\(reader), column \(name), row \(row): read \(read), expected \(expected)",
                    sourceLocation: sourceLocation)
            }
        }
    }
    return readings
}

private func sameValue(_ seen: String?, _ wanted: String?, asNumber: Bool) -> Bool {
    guard let seen, let wanted else { return seen == nil && wanted == nil }
    guard asNumber, let left = Double(seen), let right = Double(wanted) else { return seen == wanted }
    if left.isNaN || right.isNaN { return left.isNaN && right.isNaN }
    return left == right && left.sign == right.sign
}
