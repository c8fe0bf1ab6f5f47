import FerryIO
import FerryStore
import Foundation

/// The records of a chunk exactly as read, so that a record refused after packing (a relationship key that does
/// not resolve, a row the insert refuses, a validation failure at the save) is rejected as the input held it: its
/// fields in the input's order, null tokens such as `NA` as written.
///
/// Compact: one byte buffer and one span per record; no `String` and no fixed-size slot per field. Each field is
/// written as its kind (one byte), the packed row's column holding its text (a varint, 0 for none), its name's
/// length plus one (a varint, 0 for none: CSV), its text's length (a varint, only when no column holds it), then
/// its name and text. Record `n` is the `n`th row packed, and moves with its row when a chunk is reordered (see
/// ``reorder(_:)``).
///
/// A field whose text the packed row already holds byte for byte (a string column's text cell) is not copied
/// again: its text is read back from the row. Strings are most of a file's bytes, so the copy costs a fraction of
/// the chunk it belongs to (a context-mode import holds three chunks at once).
struct RawRecords: Sendable {
    /// One record: where its fields start in ``bytes`` (-1: not kept) and how many it has.
    private struct Span: Sendable {
        var start: Int
        var count: Int
    }

    private var bytes: [UInt8] = []
    private var spans: [Span] = []
    /// The number of records held.
    var count: Int { spans.count }

    /// Bytes held, to size the next chunk's buffer.
    var byteCount: Int { bytes.count }

    /// Reserves room for `records` records and `bytes` bytes in all.
    mutating func reserveCapacity(records: Int, bytes byteCount: Int) {
        spans.reserveCapacity(records)
        bytes.reserveCapacity(byteCount)
    }

    /// Keeps a copy of `record`'s fields (names, text and kinds), packed as the last row of `rows`. Field `i` whose
    /// text equals the text cell of column `textColumns[i]` (when that is not -1) of that row keeps no copy of it.
    mutating func append(_ record: Record, packedIn rows: PackedRows, textColumns: [Int16]?) {
        spans.append(Span(start: bytes.count, count: record.count))
        let named = record.buffer.fieldsHaveNames
        let row = rows.count - 1
        for index in 0..<record.count {
            let field = record[index]
            var column = -1
            if let textColumns, index < textColumns.count, textColumns[index] >= 0, field.kind == .string,
                case .text(let offset, let count) = rows.cell(row: row, column: Int(textColumns[index]))
            {
                let same = field.withUnsafeBytes { text in
                    rows.bytes.withUnsafeBytes { packed in
                        guard text.count == count else { return false }
                        guard let start = text.baseAddress, let base = packed.baseAddress else { return count == 0 }
                        return memcmp(start, base + offset, count) == 0
                    }
                }
                if same { column = Int(textColumns[index]) }
            }
            bytes.append(field.kind.rawValue)
            appendVarint(column + 1)
            if named {
                field.withUnsafeNameBytes { name in
                    appendVarint(name.count + 1)
                    bytes.append(contentsOf: name)
                }
            } else {
                appendVarint(0)
            }
            if column < 0 {
                field.withUnsafeBytes { text in
                    appendVarint(text.count)
                    bytes.append(contentsOf: text)
                }
            }
        }
    }

    /// Holds the place of a record that cannot be refused after packing (see
    /// ``RecordPacker/keepsRecordAsRead(_:)``): nothing of it is copied.
    mutating func appendUnkept() {
        spans.append(Span(start: -1, count: 0))
    }

    /// Keeps the records at `order` (indexes of records), in that order; their bytes stay where they are.
    mutating func reorder(_ order: [Int]) {
        spans = order.map { spans[$0] }
    }

    /// Record `index`'s fields as a reject's fields JSON (see ``RejectedRecord``), CSV fields named from `columnNames`;
    /// `rows` are the rows the records were packed in (row `index` is record `index`'s).
    func fieldsJSON(ofRecord index: Int, columnNames: [String]?, rows: PackedRows) -> String {
        let span = spans[index]
        // Only a record the packer said could not be refused later is unkept; should one be, its reject still
        // names its file, position and reason.
        guard span.start >= 0 else { return "[]" }
        var fields: [RejectedRecord.RawField] = []
        fields.reserveCapacity(span.count)
        var cursor = span.start
        for offset in 0..<span.count {
            let kind = FieldKind(rawValue: bytes[cursor]) ?? .string
            cursor += 1
            let column = readVarint(&cursor) - 1
            let nameCount = readVarint(&cursor) - 1
            var name = columnNames.flatMap { offset < $0.count ? $0[offset] : nil }
            if nameCount >= 0 {
                name = String(decoding: bytes[cursor..<cursor + nameCount], as: UTF8.self)
                cursor += nameCount
            }
            let text: String
            if column >= 0 {
                text = rows.withBytes(of: rows.cell(row: index, column: column)) { String(decoding: $0, as: UTF8.self) }
            } else {
                let textCount = readVarint(&cursor)
                text = String(decoding: bytes[cursor..<cursor + textCount], as: UTF8.self)
                cursor += textCount
            }
            fields.append(RejectedRecord.RawField(name: name, kind: kind, text: text))
        }
        return RejectedRecord.fieldsJSON(fields)
    }

    /// Removes every record, keeping the buffers' capacity.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
    }

    /// Appends `value` (not negative) as a LEB128 varint: one byte below 128.
    private mutating func appendVarint(_ value: Int) {
        var value = UInt(value)
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Reads the varint at `cursor` and moves past it.
    private func readVarint(_ cursor: inout Int) -> Int {
        var value: UInt = 0
        var shift: UInt = 0
        while true {
            let byte = bytes[cursor]
            cursor += 1
            value |= UInt(byte & 0x7F) << shift
            if byte < 0x80 { return Int(value) }
            shift += 7
        }
    }
}
