/// Writes records as compact JSON objects, one field at a time: the engine of ``JSONWriter``. Its two layouts differ
/// only in what goes around the objects.
///
/// Strings are escaped (`"`, `\`, and control characters; other text, non-ASCII included, goes out as it is) and
/// checked to be UTF-8; numbers, booleans and JSON text are written as given; nulls and missing columns as `null`.
///
/// Each field is formatted in one step straight into the output's buffer (its key, pre-escaped by
/// ``begin(columns:)``, then its value), and the encoder's state sits behind a stable pointer: a field
/// costs no allocation and few calls into ``OutputFile``.
final class JSONObjectEncoder {
    /// The encoder's mutable state; see the type's discussion for why it is behind a pointer.
    private struct State {
        /// `"key":` for the first column and `,"key":` for the others, escaped, back to back; column `i`'s ends
        /// at `keyEnds[i]`.
        /// Both in memory of the encoder's own rather than arrays: reading them per field then costs no reference
        /// counting.
        var keys = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        var keyEnds = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
        var hasBegun = false
        var isInsideRecord = false
        /// The column of the next field in the current record.
        var fieldIndex = 0
        var recordsWritten = 0
    }

    let output: OutputFile
    private let layout: JSONWriter.Layout
    private let state: UnsafeMutablePointer<State>
    /// Where a piece of a large string is escaped before it goes to the output, ``chunkBytes`` long.
    private let scratch: UnsafeMutableRawPointer

    /// Fields up to this size (after escaping, at worst) are formatted in one step; larger values go in chunks.
    private static let chunkBytes = 16 * 1024

    init(output: OutputFile, layout: JSONWriter.Layout) {
        self.output = output
        self.layout = layout
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        scratch = .allocate(byteCount: Self.chunkBytes, alignment: 8)
    }

    deinit {
        state.pointee.keys.deallocate()
        state.pointee.keyEnds.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
        scratch.deallocate()
    }

    /// Records ended so far.
    var recordsWritten: Int { state.pointee.recordsWritten }

    /// Takes the column names (the keys of every object), escaped once here rather than per record.
    func begin(columns: [String]) {
        precondition(!state.pointee.hasBegun, "begin(columns:) called twice")
        state.pointee.hasBegun = true
        var keys: [UInt8] = []
        var keyEnds: [Int] = []
        for (index, column) in columns.enumerated() {
            if index > 0 { keys.append(JSONBytes.comma) }
            keys.append(JSONBytes.quote)
            var name = column
            name.withUTF8 { name in
                keys += [UInt8](unsafeUninitializedCapacity: name.count * 6) { buffer, count in
                    // A Swift string is always valid UTF-8, so escaping it cannot fail.
                    count =
                        buffer.baseAddress.flatMap {
                            try? Self.escape(UnsafeRawBufferPointer(name), into: UnsafeMutableRawPointer($0))
                        } ?? 0
                }
            }
            keys += [JSONBytes.quote, JSONBytes.colon]
            keyEnds.append(keys.count)
        }
        state.pointee.keys = .allocate(byteCount: keys.count, alignment: 1)
        state.pointee.keys.copyBytes(from: keys)
        state.pointee.keyEnds = .allocate(capacity: keyEnds.count)
        _ = state.pointee.keyEnds.initialize(from: keyEnds)
    }

    /// Writes the next field of the current record, opening the record first when needed.
    ///
    /// - Throws: ``FerryIOError`` with ``FerryIOError/Code/unknownColumn`` past the last column,
    ///   ``FerryIOError/Code/invalidUTF8`` for a string that is not UTF-8, or an I/O error.
    @inline(__always)
    func writeField(_ bytes: UnsafeRawBufferPointer, kind: FieldKind) throws {
        let state = self.state
        precondition(state.pointee.hasBegun, "begin(columns:) must come before the first field")
        if !state.pointee.isInsideRecord { try openRecord() }
        let index = state.pointee.fieldIndex
        let record = state.pointee.recordsWritten + 1
        guard index < state.pointee.keyEnds.count else {
            throw FerryIOError(
                .unknownColumn,
                "record \(record) has more fields than the \(state.pointee.keyEnds.count) columns"
                    + " given to begin(columns:)",
                file: output.path, record: record)
        }
        state.pointee.fieldIndex = index + 1
        let keys = UnsafeRawBufferPointer(state.pointee.keys)
        let key = UnsafeRawBufferPointer(
            rebasing: keys[(index == 0 ? 0 : state.pointee.keyEnds[index - 1])..<state.pointee.keyEnds[index]])
        let largest = kind == .string ? 2 + 6 * bytes.count : kind == .null ? 4 : bytes.count
        guard key.count + largest <= Self.chunkBytes else {
            try output.write(key)
            try writeLargeValue(bytes, kind: kind, record: record)
            return
        }
        try output.withUnsafeSpace(atLeast: key.count + largest) { space in
            guard let target = space.baseAddress else { return 0 }
            if let keyStart = key.baseAddress { target.copyMemory(from: keyStart, byteCount: key.count) }
            var count = key.count
            switch kind {
            case .null:
                (target + count).copyMemory(from: nullText.utf8Start, byteCount: 4)
                count += 4
            case .string:
                (target + count).storeBytes(of: JSONBytes.quote, as: UInt8.self)
                count += 1
                count += try escape(bytes, into: target + count, record: record)
                (target + count).storeBytes(of: JSONBytes.quote, as: UInt8.self)
                count += 1
            case .number, .boolean, .json:
                if let source = bytes.baseAddress {
                    (target + count).copyMemory(from: source, byteCount: bytes.count)
                }
                count += bytes.count
            }
            return count
        }
    }

    /// Ends the current record, writing `null` for the columns it did not reach.
    ///
    /// - Throws: ``FerryIOError`` when writing fails.
    func endRecord() throws {
        precondition(state.pointee.hasBegun, "begin(columns:) must come before the first record")
        if !state.pointee.isInsideRecord { try openRecord() }
        while state.pointee.fieldIndex < state.pointee.keyEnds.count {
            try writeField(UnsafeRawBufferPointer(start: nil, count: 0), kind: .null)
        }
        if case .ndjson = layout {
            try output.write(UnsafeRawBufferPointer(start: objectEndLineText.utf8Start, count: 2))
        } else {
            try output.write(byte: JSONBytes.closeBrace)
        }
        state.pointee.isInsideRecord = false
        state.pointee.fieldIndex = 0
        state.pointee.recordsWritten += 1
    }

    /// Closes the layout and moves the output into place.
    ///
    /// - Throws: ``FerryIOError`` when writing, syncing or renaming fails.
    func finish() throws {
        precondition(!state.pointee.isInsideRecord, "finish() called inside a record; call endRecord() first")
        if case .array = layout {
            try output.write(state.pointee.recordsWritten == 0 ? "[]\n" : "\n]\n")
        }
        try output.commit()
    }

    /// ``escape(_:into:file:record:)`` naming this output's path only when it fails: reading the path for every
    /// string would retain and release it each time.
    @inline(__always)
    private func escape(_ text: UnsafeRawBufferPointer, into target: UnsafeMutableRawPointer, record: Int) throws
        -> Int
    {
        do {
            return try Self.escape(text, into: target)
        } catch {
            throw FerryIOError(
                .invalidUTF8, "a string value is not valid UTF-8; expected UTF-8 text", file: output.path,
                record: record)
        }
    }

    private func openRecord() throws {
        if case .array = layout { try output.write(state.pointee.recordsWritten == 0 ? "[\n" : ",\n") }
        try output.write(byte: JSONBytes.openBrace)
        state.pointee.isInsideRecord = true
    }

    /// Writes a value too large to format in one step (with its key): a string escaped a chunk at a time (chunks
    /// end on character boundaries), a null as `null` (a long key alone can send it here), anything else as it
    /// is.
    private func writeLargeValue(_ bytes: UnsafeRawBufferPointer, kind: FieldKind, record: Int) throws {
        switch kind {
        case .null:
            try output.write(UnsafeRawBufferPointer(start: nullText.utf8Start, count: 4))
            return
        case .number, .boolean, .json:
            try output.write(bytes)
            return
        case .string:
            break
        }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            try output.write(UnsafeRawBufferPointer(start: emptyStringText.utf8Start, count: 2))
            return
        }
        let chunk = Self.chunkBytes / 6
        try output.write(byte: JSONBytes.quote)
        var start = 0
        while start < bytes.count {
            var end = min(start + chunk, bytes.count)
            // Back off to the start of a character split by the chunk's end; a run of nothing but continuation
            // bytes is left whole, for the escaper to refuse.
            var boundary = end
            while boundary > start && boundary < bytes.count && base[boundary] & 0xC0 == 0x80 { boundary -= 1 }
            if boundary > start { end = boundary }
            let piece = UnsafeRawBufferPointer(start: base + start, count: end - start)
            let count = try Self.escape(piece, into: scratch, file: output.path, record: record)
            try output.write(UnsafeRawBufferPointer(start: scratch, count: count))
            start = end
        }
        try output.write(byte: JSONBytes.quote)
    }
}

extension JSONObjectEncoder {
    /// Writes `text` JSON-escaped at `target`, which has room for six bytes per byte of `text`, and returns the
    /// length: plain runs are copied as they are (found eight bytes at a time), and `"`, `\` and control
    /// characters become escapes.
    ///
    /// - Throws: ``FerryIOError`` with ``FerryIOError/Code/invalidUTF8`` (naming `file` and `record`) when `text`
    ///   is not UTF-8.
    @inline(__always)
    static func escape(
        _ text: UnsafeRawBufferPointer, into target: UnsafeMutableRawPointer, file: String? = nil, record: Int? = nil
    ) throws -> Int {
        guard let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        let end = base + text.count
        var runStart = base
        var pointer = base
        var written = 0
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
                (target + written).copyMemory(from: runStart, byteCount: pointer - runStart)
                written += pointer - runStart
                written += writeEscape(for: byte, to: target + written)
                pointer += 1
                runStart = pointer
            } else {
                pointer += 1
            }
        }
        (target + written).copyMemory(from: runStart, byteCount: end - runStart)
        return written + (end - runStart)
    }

    /// Writes the escape for `byte` (`"`, `\` or a control character) and returns its length (2 or 6).
    private static func writeEscape(for byte: UInt8, to target: UnsafeMutableRawPointer) -> Int {
        target.storeBytes(of: JSONBytes.backslash, as: UInt8.self)
        let short: UInt8
        switch byte {
        case JSONBytes.quote, JSONBytes.backslash: short = byte
        case 0x08: short = UInt8(ascii: "b")
        case 0x0C: short = UInt8(ascii: "f")
        case 0x0A: short = UInt8(ascii: "n")
        case 0x0D: short = UInt8(ascii: "r")
        case 0x09: short = UInt8(ascii: "t")
        default:
            let hexDigits = lowercaseHexDigits.utf8Start
            target.storeBytes(of: UInt8(ascii: "u"), toByteOffset: 1, as: UInt8.self)
            target.storeBytes(of: JSONBytes.zero, toByteOffset: 2, as: UInt8.self)
            target.storeBytes(of: JSONBytes.zero, toByteOffset: 3, as: UInt8.self)
            target.storeBytes(of: hexDigits[Int(byte >> 4)], toByteOffset: 4, as: UInt8.self)
            target.storeBytes(of: hexDigits[Int(byte & 0x0F)], toByteOffset: 5, as: UInt8.self)
            return 6
        }
        target.storeBytes(of: short, toByteOffset: 1, as: UInt8.self)
        return 2
    }
}

private let nullText: StaticString = "null"
private let emptyStringText: StaticString = "\"\""
private let objectEndLineText: StaticString = "}\n"
private let lowercaseHexDigits: StaticString = "0123456789abcdef"
