import FerryIO
import FerryStore
import Foundation

/// Writes the columns of snapshot rows to a ``RecordWriter``, straight from SQLite's buffers: text is passed
/// through without a copy, numbers and dates are formatted into a scratch buffer the writer owns, and binary
/// values are Base64-encoded into a buffer reused from row to row.
///
/// Values by attribute type (stored encodings in, export text out):
/// - strings, UUIDs, URIs: their text; integers: digits (a JSON number); doubles and floats: Swift's shortest
///   round-trip text (`0.1`, `1e+16`), non-finite ones `nan`/`inf` in CSV and `null` in JSON;
/// - decimals: their exact stored text (a JSON number, so no digit is lost); booleans: `true`/`false`;
/// - dates: ISO 8601 in UTC, `2026-01-05T09:00:00Z`, with fractional seconds (to the microsecond, trailing zeros
///   dropped) only when present;
/// - binary and transformable values: Base64, externally stored ones read from their files in the blob folder.
final class ExportFieldWriter {
    /// How one column is written.
    enum Encoding {
        case integer, real, decimal, text, boolean, date, binary
    }

    private let encodings: [Encoding]
    private let blobFolder: String
    private let isJSON: Bool
    /// Room for one formatted number or date.
    private let scratch: UnsafeMutableRawBufferPointer
    /// Base64 output, grown to the largest value seen.
    private var base64: [UInt8] = []

    /// A writer for `columns`, reading blob files from `blobFolder`.
    init(columns: [SnapshotRows.Column], blobFolder: String, isJSON: Bool) {
        encodings = columns.map { Self.encoding(of: $0.type) }
        self.blobFolder = blobFolder
        self.isJSON = isJSON
        scratch = .allocate(byteCount: 64, alignment: 8)
    }

    deinit {
        scratch.deallocate()
    }

    static func encoding(of type: AttributeType) -> Encoding {
        switch type {
        case .integer16, .integer32, .integer64: .integer
        case .double, .float: .real
        case .decimal: .decimal
        case .string, .uuid, .uri: .text
        case .boolean: .boolean
        case .date: .date
        case .binary, .transformable: .binary
        }
    }

    /// Writes `row` as one record.
    ///
    /// - Throws: ``FerryIOError`` when writing fails; ``StoreError`` when a blob file is missing or unreadable.
    @inline(__always)
    func writeRow<Row: ExportRow, Writer: RecordWriter>(_ row: Row, to writer: Writer) throws {
        for index in encodings.indices {
            try writeField(row, index, encodings[index], to: writer)
        }
        try writer.endRecord()
    }

    @inline(__always)
    private func writeField<Row: ExportRow, Writer: RecordWriter>(
        _ row: Row, _ index: Int, _ encoding: Encoding, to writer: Writer
    ) throws {
        let storage = row.storageClass(at: index)
        switch (storage, encoding) {
        case (nil, _):
            try writer.writeField(UnsafeRawBufferPointer(start: nil, count: 0), kind: .null)
        case (.integer?, .boolean):
            let text: StaticString = row.int64(at: index) == 0 ? "false" : "true"
            try writer.writeField(
                UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), kind: .boolean)
        case (.integer?, .date), (.real?, .date):
            let count = ISO8601Text.write(seconds: row.double(at: index), into: scratch)
            try writer.writeField(UnsafeRawBufferPointer(rebasing: scratch[0..<count]), kind: .string)
        case (.integer?, _):
            let count = Self.writeDigits(row.int64(at: index), into: scratch)
            try writer.writeField(UnsafeRawBufferPointer(rebasing: scratch[0..<count]), kind: .number)
        case (.real?, _):
            try writeDouble(row.double(at: index), to: writer)
        case (.text?, .binary):
            try row.withTextBytes(at: index) { bytes in
                if let relative = ReadSnapshot.blobRelativePath(ofReference: bytes) {
                    try writeBase64(of: try SnapshotRows.blobFileBytes(relative, in: blobFolder), to: writer)
                } else {
                    try writer.writeField(bytes, kind: .string)
                }
            }
        case (.text?, .decimal):
            try row.withTextBytes(at: index) { try writer.writeField($0, kind: .number) }
        case (.text?, _):
            try row.withTextBytes(at: index) { try writer.writeField($0, kind: .string) }
        case (.blob?, _):
            try row.withBlobBytes(at: index) { try writeBase64(of: $0, to: writer) }
        }
    }

    private func writeDouble<Writer: RecordWriter>(_ value: Double, to writer: Writer) throws {
        guard value.isFinite || !isJSON else {
            return try writer.writeField(UnsafeRawBufferPointer(start: nil, count: 0), kind: .null)
        }
        if let count = ShortDoubleText.write(value, into: scratch) {
            return try writer.writeField(UnsafeRawBufferPointer(rebasing: scratch[0..<count]), kind: .number)
        }
        // Up to 15 UTF-8 bytes, Swift keeps the text inline: no allocation for ordinary values.
        var text = value.description
        try text.withUTF8 { try writer.writeField(UnsafeRawBufferPointer($0), kind: .number) }
    }

    /// Writes `value`'s decimal digits at the start of `buffer`; returns how many bytes.
    static func writeDigits(_ value: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var digits = 1
        var probe = value.magnitude
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        let count = digits + (value < 0 ? 1 : 0)
        var magnitude = value.magnitude
        var position = count
        repeat {
            position -= 1
            buffer[position] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
            magnitude /= 10
        } while magnitude > 0
        if value < 0 { buffer[0] = 0x2D }
        return count
    }

    private func writeBase64<Writer: RecordWriter>(of bytes: UnsafeRawBufferPointer, to writer: Writer) throws {
        let count = Base64Text.encodedCount(bytes.count)
        if base64.count < count { base64 = [UInt8](repeating: 0, count: count) }
        try base64.withUnsafeMutableBytes { buffer in
            Base64Text.encode(bytes, into: buffer)
            try writer.writeField(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), kind: .string)
        }
    }

    private func writeBase64<Writer: RecordWriter>(of data: Data, to writer: Writer) throws {
        try data.withUnsafeBytes { try writeBase64(of: $0, to: writer) }
    }
}
