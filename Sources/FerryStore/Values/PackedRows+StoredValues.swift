import FerrySQLite
import Foundation

/// The stored form of each attribute type (``StoredValueCodec``'s encoding) appended to packed rows: one appender for
/// values built off the hot path, and allocation-free typed appenders for an importer's converted fields.
extension PackedRows {
    /// Appends `value` (or NULL) in the stored form of an attribute of `type` (``StoredValueCodec``'s encoding).
    /// For values built off the hot path: defaults, constants, values checked against rules.
    package mutating func append(_ value: AttributeValue?, as type: AttributeType) {
        switch StoredValueCodec.encode(value, as: type) {
        case .null: appendNull()
        case .integer(let integer): appendInteger(integer)
        case .real(let real): appendReal(real)
        case .text(var text): text.withUTF8 { appendText(UnsafeRawBufferPointer($0)) }
        case .blob(let bytes): bytes.withUnsafeBytes { appendBlob($0) }
        }
    }

    /// Appends a boolean in its stored form, 0 or 1. Hot path: no allocation.
    @inline(__always)
    package mutating func appendBoolean(_ flag: Bool) {
        appendInteger(flag ? 1 : 0)
    }

    /// Appends a date in its stored form, seconds since 1970. Hot path: no allocation.
    @inline(__always)
    package mutating func appendDate(secondsSince1970 seconds: Double) {
        appendReal(seconds)
    }

    /// Appends a decimal in its stored form, the exact canonical text of `number`, parsed from `source`. Hot path:
    /// no allocation.
    @inline(__always)
    package mutating func appendDecimal(_ number: DecimalText, parsedFrom source: UnsafeRawBufferPointer) {
        appendText(capacity: number.textCount) { number.write(from: source, into: $0) }
    }

    /// Appends a UUID in its stored form, lower-case `8-4-4-4-12` text, from `text`: 36 bytes of that shape in either
    /// case, already checked by the caller. Hot path: no allocation.
    @inline(__always)
    package mutating func appendUUID(text: UnsafeRawBufferPointer) {
        appendText(capacity: text.count) { output in
            for index in 0..<text.count {
                let byte = text[index]
                output[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            return text.count
        }
    }

    /// The value of a complete row's cell for an attribute of `type` (the inverse of ``append(_:as:)``), or `nil`
    /// for a NULL or absent cell, or one that is no valid encoding of the type.
    package func value(row: Int, column: Int, as type: AttributeType) -> AttributeValue? {
        let cell = cell(row: row, column: column)
        switch cell {
        case .absent, .null: return nil
        case .integer(let integer): return StoredValueCodec.decode(.integer(integer), as: type)
        case .real(let real): return StoredValueCodec.decode(.real(real), as: type)
        case .text:
            let text = withBytes(of: cell) { String(decoding: $0, as: UTF8.self) }
            return StoredValueCodec.decode(.text(text), as: type)
        case .blob:
            return StoredValueCodec.decode(.blob(withBytes(of: cell) { Array($0) }), as: type)
        }
    }

    /// The key text (``StoredValueCodec/keyText(of:)``) of complete row `row`'s cells at `columns`, read straight
    /// from the packed buffers; `nil` when one is NULL or absent.
    package func keyText(row: Int, columns keyColumns: [Int]) -> String? {
        var text = ""
        for (offset, column) in keyColumns.enumerated() {
            if offset > 0 { text.append(StoredValueCodec.keyPartSeparator) }
            guard appendKeyText(ofCell: cell(row: row, column: column), to: &text) else { return nil }
        }
        return text
    }

    /// Appends the key text of `cell` to `text`; `false` for a NULL or absent cell.
    package func appendKeyText(ofCell cell: Cell, to text: inout String) -> Bool {
        switch cell {
        case .absent, .null: return false
        case .integer(let value): StoredValueCodec.appendKeyText(integer: value, to: &text)
        case .real(let value): StoredValueCodec.appendKeyText(real: value, to: &text)
        case .text: withBytes(of: cell) { StoredValueCodec.appendKeyText(text: $0, to: &text) }
        case .blob: withBytes(of: cell) { StoredValueCodec.appendKeyText(blob: $0, to: &text) }
        }
        return true
    }
}
