/// Writes Thrift's compact protocol, the encoding of a Parquet file's footer and page headers.
///
/// Only what Parquet's metadata needs: structs with field ids, `i32`/`i64` as zigzag varints, booleans, binary and
/// strings, lists of structs, integers and strings. Field headers carry the delta from the previous field's id, so
/// each struct keeps its last id on a stack:
///
/// ```swift
/// var thrift = ThriftCompactWriter()
/// thrift.writeI32(field: 1, 2)           // version
/// thrift.beginStruct(field: 2)           // a nested struct
/// thrift.writeBinary(field: 1, bytes)
/// thrift.endStruct()
/// thrift.writeStop()
/// ```
struct ThriftCompactWriter {
    /// The encoded bytes so far; ``reset()`` empties it and keeps its capacity.
    private(set) var bytes: [UInt8] = []
    /// The previous field id of each open struct, innermost last.
    private var lastFields: [Int16] = [0]

    /// Compact-protocol type codes.
    enum FieldType: UInt8 {
        case booleanTrue = 1, booleanFalse = 2, byte = 3, i16 = 4, i32 = 5, i64 = 6, double = 7, binary = 8
        case list = 9, set = 10, map = 11, structure = 12
    }

    init() {
        bytes.reserveCapacity(256)
    }

    /// Empties the output for the next top-level struct, keeping the buffer.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        lastFields.removeAll(keepingCapacity: true)
        lastFields.append(0)
    }

    mutating func writeI32(field: Int16, _ value: Int32) {
        writeFieldHeader(field, .i32)
        writeVarint(zigzag(Int64(value)))
    }

    mutating func writeI64(field: Int16, _ value: Int64) {
        writeFieldHeader(field, .i64)
        writeVarint(zigzag(value))
    }

    mutating func writeI16(field: Int16, _ value: Int16) {
        writeFieldHeader(field, .i16)
        writeVarint(zigzag(Int64(value)))
    }

    mutating func writeI8(field: Int16, _ value: Int8) {
        writeFieldHeader(field, .byte)
        bytes.append(UInt8(bitPattern: value))
    }

    mutating func writeBool(field: Int16, _ value: Bool) {
        writeFieldHeader(field, value ? .booleanTrue : .booleanFalse)
    }

    mutating func writeBinary(field: Int16, _ value: UnsafeRawBufferPointer) {
        writeFieldHeader(field, .binary)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func writeBinary(field: Int16, _ value: [UInt8]) {
        value.withUnsafeBytes { writeBinary(field: field, $0) }
    }

    mutating func writeString(field: Int16, _ value: String) {
        writeBinary(field: field, Array(value.utf8))
    }

    /// Starts a struct-valued field; close it with ``endStruct()``.
    mutating func beginStruct(field: Int16) {
        writeFieldHeader(field, .structure)
        lastFields.append(0)
    }

    /// Closes the innermost struct (writes its stop byte).
    mutating func endStruct() {
        bytes.append(0)
        lastFields.removeLast()
    }

    /// Starts a list field of `count` elements of `type`.
    mutating func beginList(field: Int16, of type: FieldType, count: Int) {
        writeFieldHeader(field, .list)
        if count < 15 {
            bytes.append(UInt8(count) << 4 | type.rawValue)
        } else {
            bytes.append(0xF0 | type.rawValue)
            writeVarint(UInt64(count))
        }
    }

    /// Starts one struct element of a list; close it with ``endStruct()``.
    mutating func beginListElementStruct() {
        lastFields.append(0)
    }

    /// One `i32` element of a list.
    mutating func writeListElement(_ value: Int32) {
        writeVarint(zigzag(Int64(value)))
    }

    /// One string element of a list.
    mutating func writeListElement(_ value: String) {
        let utf8 = Array(value.utf8)
        writeVarint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Ends the top-level struct.
    mutating func writeStop() {
        bytes.append(0)
    }

    private mutating func writeFieldHeader(_ field: Int16, _ type: FieldType) {
        let last = lastFields[lastFields.count - 1]
        let delta = field - last
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type.rawValue)
        } else {
            bytes.append(type.rawValue)
            writeVarint(zigzag(Int64(field)))
        }
        lastFields[lastFields.count - 1] = field
    }

    private mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}
