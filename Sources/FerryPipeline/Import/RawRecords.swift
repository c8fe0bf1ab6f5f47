import FerryIO
import FerryStore
import Foundation

/// The records of a chunk exactly as read, so that a record refused after packing (a relationship key that does
/// not resolve, a row the insert refuses, a validation failure at the save) is rejected as the input held it: its
/// fields in the input's order, null tokens such as `NA` as written.
///
/// Compact: one byte buffer holding each field's name (JSON) and text, one small slot per field and one span per
/// record; no `String` per field. Record `n` is the `n`th row packed, and moves with its row when a chunk is
/// reordered (see ``reorder(_:)``).
///
/// A field whose text the packed row already holds byte for byte (a string column's text cell) is not copied again:
/// its slot names the row's column, and its text is read back from the row. Strings are most of a file's bytes, so
/// the copy costs a fraction of the chunk it belongs to (a context-mode import holds three chunks at once).
struct RawRecords: Sendable {
    /// One field: where its name and text end in ``bytes``, how long its name is (-1: none), its kind, and the
    /// packed row's column holding its text (-1: its text is in ``bytes``).
    private struct Slot: Sendable {
        var end: Int
        var nameCount: Int32
        var column: Int16
        var kind: FieldKind
    }

    /// One record: its first slot and how many fields it has.
    private struct Span: Sendable {
        var firstSlot: Int
        var count: Int
    }

    private var bytes: [UInt8] = []
    private var slots: [Slot] = []
    private var spans: [Span] = []

    /// The number of records held.
    var count: Int { spans.count }

    /// Bytes held, to size the next chunk's buffer.
    var byteCount: Int { bytes.count }

    /// Fields held, to size the next chunk's buffer.
    var fieldCount: Int { slots.count }

    /// Reserves room for `records` records of `fields` fields and `bytes` bytes in all.
    mutating func reserveCapacity(records: Int, fields: Int, bytes byteCount: Int) {
        spans.reserveCapacity(records)
        slots.reserveCapacity(fields)
        bytes.reserveCapacity(byteCount)
    }

    /// Keeps a copy of `record`'s fields (names, text and kinds), packed as the last row of `rows`. Field `i` whose
    /// text equals the text cell of column `textColumns[i]` (when that is not -1) of that row keeps no copy of it.
    mutating func append(_ record: Record, packedIn rows: PackedRows, textColumns: [Int16]?) {
        spans.append(Span(firstSlot: slots.count, count: record.count))
        let named = record.buffer.fieldsHaveNames
        let row = rows.count - 1
        for index in 0..<record.count {
            let field = record[index]
            var nameCount: Int32 = -1
            if named {
                field.withUnsafeNameBytes { name in
                    bytes.append(contentsOf: name)
                    nameCount = Int32(name.count)
                }
            }
            var column: Int16 = -1
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
                if same { column = textColumns[index] }
            }
            if column < 0 { field.withUnsafeBytes { bytes.append(contentsOf: $0) } }
            slots.append(Slot(end: bytes.count, nameCount: nameCount, column: column, kind: field.kind))
        }
    }

    /// Holds the place of a record that cannot be refused after packing (see
    /// ``RecordPacker/keepsRecordAsRead(_:)``): nothing of it is copied.
    mutating func appendUnkept() {
        spans.append(Span(firstSlot: -1, count: 0))
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
        guard span.firstSlot >= 0 else { return "[]" }
        var fields: [RejectedRecord.RawField] = []
        fields.reserveCapacity(span.count)
        for offset in 0..<span.count {
            let slot = slots[span.firstSlot + offset]
            let start = span.firstSlot + offset == 0 ? 0 : slots[span.firstSlot + offset - 1].end
            let nameEnd = start + max(Int(slot.nameCount), 0)
            let name =
                slot.nameCount >= 0
                ? String(decoding: bytes[start..<nameEnd], as: UTF8.self)
                : columnNames.flatMap { offset < $0.count ? $0[offset] : nil }
            let text =
                slot.column >= 0
                ? rows.withBytes(of: rows.cell(row: index, column: Int(slot.column))) {
                    String(decoding: $0, as: UTF8.self)
                }
                : String(decoding: bytes[nameEnd..<slot.end], as: UTF8.self)
            fields.append(RejectedRecord.RawField(name: name, kind: slot.kind, text: text))
        }
        return RejectedRecord.fieldsJSON(fields)
    }

    /// Removes every record, keeping the buffers' capacity.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
    }
}
