/// Writes records as compact JSON objects, one field at a time: the part ``NDJSONWriter`` and ``JSONArrayWriter``
/// share. They differ only in what goes around the objects, which ``Framing`` names.
///
/// Strings are escaped (`"`, `\`, and control characters; other text, non-ASCII included, goes out as it is) and
/// checked to be UTF-8; numbers, booleans and JSON text are written as given; nulls and missing columns as `null`.
final class JSONObjectEncoder {
    /// What surrounds the objects.
    enum Framing {
        /// One object per line.
        case lines
        /// `[`, a line break, objects separated by `,` and a line break, a line break and `]`; `[]` when empty.
        case array
    }

    let output: OutputFile
    private let framing: Framing
    /// `"key":` for every column, escaped, back to back; column `i`'s ends at `keyEnds[i]`.
    private var keys: [UInt8] = []
    private var keyEnds: [Int] = []
    private var hasBegun = false
    private var isInsideRecord = false
    /// The column of the next field in the current record.
    private var fieldIndex = 0
    /// Records ended so far.
    private(set) var recordsWritten = 0

    init(output: OutputFile, framing: Framing) {
        self.output = output
        self.framing = framing
    }

    /// Takes the column names (the keys of every object), escaped once here rather than per record.
    func begin(columns: [String]) {
        precondition(!hasBegun, "begin(columns:) called twice")
        hasBegun = true
        for column in columns {
            var name = column
            keys.append(JSONBytes.quote)
            name.withUTF8 { name in
                // A Swift string is always valid UTF-8, so escaping it cannot fail.
                try? Self.escape(UnsafeRawBufferPointer(name), file: nil, record: nil) { keys.append(contentsOf: $0) }
            }
            keys.append(contentsOf: [JSONBytes.quote, JSONBytes.colon])
            keyEnds.append(keys.count)
        }
    }

    /// Writes the next field of the current record, opening the record first when needed.
    ///
    /// - Throws: ``FerryIOError`` with ``FerryIOError/Code/unknownColumn`` past the last column,
    ///   ``FerryIOError/Code/invalidUTF8`` for a string that is not UTF-8, or an I/O error.
    @inline(__always)
    func writeField(_ bytes: UnsafeRawBufferPointer, kind: FieldKind) throws {
        precondition(hasBegun, "begin(columns:) must come before the first field")
        if !isInsideRecord { try openRecord() }
        guard fieldIndex < keyEnds.count else {
            throw FerryIOError(
                .unknownColumn,
                "record \(recordsWritten + 1) has more fields than the \(keyEnds.count) columns"
                    + " given to begin(columns:)",
                file: output.path, record: recordsWritten + 1)
        }
        try writeKey(fieldIndex)
        fieldIndex += 1
        switch kind {
        case .null:
            try output.write(UnsafeRawBufferPointer(nullText))
        case .string:
            try output.write(byte: JSONBytes.quote)
            try Self.escape(bytes, file: output.path, record: recordsWritten + 1) { try output.write($0) }
            try output.write(byte: JSONBytes.quote)
        case .number, .boolean, .json:
            try output.write(bytes)
        }
    }

    /// Ends the current record, writing `null` for the columns it did not reach.
    ///
    /// - Throws: ``FerryIOError`` when writing fails.
    func endRecord() throws {
        precondition(hasBegun, "begin(columns:) must come before the first record")
        if !isInsideRecord { try openRecord() }
        while fieldIndex < keyEnds.count {
            try writeKey(fieldIndex)
            try output.write(UnsafeRawBufferPointer(nullText))
            fieldIndex += 1
        }
        try output.write(byte: JSONBytes.closeBrace)
        if case .lines = framing { try output.write(byte: JSONBytes.lineFeed) }
        isInsideRecord = false
        fieldIndex = 0
        recordsWritten += 1
    }

    /// Closes the framing and moves the output into place.
    ///
    /// - Throws: ``FerryIOError`` when writing, syncing or renaming fails.
    func finish() throws {
        precondition(!isInsideRecord, "finish() called inside a record; call endRecord() first")
        if case .array = framing {
            try output.write(recordsWritten == 0 ? "[]\n" : "\n]\n")
        }
        try output.commit()
    }

    private func openRecord() throws {
        if case .array = framing { try output.write(recordsWritten == 0 ? "[\n" : ",\n") }
        try output.write(byte: JSONBytes.openBrace)
        isInsideRecord = true
    }

    @inline(__always)
    private func writeKey(_ index: Int) throws {
        if index > 0 { try output.write(byte: JSONBytes.comma) }
        let start = index == 0 ? 0 : keyEnds[index - 1]
        try keys.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[start..<keyEnds[index]])) }
    }

    /// Hands `text` to `write` in pieces, JSON-escaped: runs of plain bytes as they are, and an escape for each `"`,
    /// `\` and control character. Runs are found eight bytes at a time.
    ///
    /// - Throws: ``FerryIOError`` with ``FerryIOError/Code/invalidUTF8`` (naming `file` and `record`) when `text`
    ///   is not UTF-8, and whatever `write` throws.
    @inline(__always)
    static func escape(
        _ text: UnsafeRawBufferPointer, file: String?, record: Int?, _ write: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let end = base + text.count
        var runStart = base
        var pointer = base
        while pointer < end {
            while end - pointer >= 8 {
                let special = JSONBytes.specialStringBytes(in: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
                if special != 0 {
                    pointer += special.trailingZeroBitCount >> 3
                    break
                }
                pointer += 8
            }
            guard pointer < end else { break }
            let byte = pointer.pointee
            if byte >= 0x80 {
                guard case .valid(let length) = JSONBytes.checkSequence(at: pointer, available: end - pointer) else {
                    throw FerryIOError(
                        .invalidUTF8, "a string value is not valid UTF-8; expected UTF-8 text", file: file,
                        record: record)
                }
                pointer += length
            } else if byte < 0x20 || byte == JSONBytes.quote || byte == JSONBytes.backslash {
                try write(UnsafeRawBufferPointer(start: runStart, count: pointer - runStart))
                try writeEscape(for: byte, write)
                pointer += 1
                runStart = pointer
            } else {
                pointer += 1
            }
        }
        try write(UnsafeRawBufferPointer(start: runStart, count: end - runStart))
    }

    private static func writeEscape(for byte: UInt8, _ write: (UnsafeRawBufferPointer) throws -> Void) throws {
        let hexDigits: StaticString = "0123456789abcdef"
        var escape: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (JSONBytes.backslash, 0, 0, 0, 0, 0)
        var length = 2
        switch byte {
        case JSONBytes.quote, JSONBytes.backslash: escape.1 = byte
        case 0x08: escape.1 = UInt8(ascii: "b")
        case 0x0C: escape.1 = UInt8(ascii: "f")
        case 0x0A: escape.1 = UInt8(ascii: "n")
        case 0x0D: escape.1 = UInt8(ascii: "r")
        case 0x09: escape.1 = UInt8(ascii: "t")
        default:
            escape.1 = UInt8(ascii: "u")
            escape.2 = JSONBytes.zero
            escape.3 = JSONBytes.zero
            escape.4 = hexDigits.utf8Start[Int(byte >> 4)]
            escape.5 = hexDigits.utf8Start[Int(byte & 0x0F)]
            length = 6
        }
        try withUnsafeBytes(of: &escape) { try write(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }
}

private let nullText: StaticString = "null"

extension UnsafeRawBufferPointer {
    /// The bytes of a static string.
    fileprivate init(_ text: StaticString) {
        self.init(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }
}
