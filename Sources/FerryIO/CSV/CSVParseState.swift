#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// What libcsv's callbacks write into while `csv_parse` runs: the fields of the record in progress, the
/// records finished in the current chunk, and what the reader must check once the call returns.
///
/// It lives behind a stable pointer owned by ``CSVReader`` and reaches the C callbacks as their `data`
/// argument, so the callbacks touch plain memory: no ARC traffic, no exclusivity checks per field.
struct CSVParseState {
    /// A record that libcsv has finished and the reader has not handed out yet.
    struct FinishedRecord {
        var firstSlot: Int
        var count: Int
        var line: Int
        var byteOffset: Int
    }

    let records: Unmanaged<RecordBuffer>
    let emptyIsNull: Bool
    let otherNullTokens: [[UInt8]]
    let skipsEmptyLines: Bool

    var finished: [FinishedRecord] = []
    /// Slot and byte where the record in progress starts in ``records``.
    var openFirstSlot = 0
    var openByteStart = 0
    var openFieldCount = 0
    /// Where the record in progress (or the next one) starts in the input.
    var openLine = 1
    var openByteOffset = 0
    /// The terminator of the last row libcsv reported, to recognise the LF of a CRLF.
    var lastTerminator: Int32 = -1
    /// The largest field seen, checked against the dialect's limit after each call into libcsv.
    var largestField = 0

    init(records: RecordBuffer, dialect: CSVDialect) {
        self.records = Unmanaged.passUnretained(records)
        emptyIsNull = dialect.nullTokens.contains("")
        otherNullTokens = dialect.nullTokens.filter { !$0.isEmpty }.map { Array($0.utf8) }
        skipsEmptyLines = dialect.skipsEmptyLines
        finished.reserveCapacity(1024)
    }

    @inline(__always)
    mutating func addField(_ pointer: UnsafeRawPointer?, _ length: Int) {
        let buffer = records.takeUnretainedValue()
        guard let pointer else {
            // CSV_EMPTY_IS_NULL: libcsv passes NULL for an unquoted empty field only.
            buffer.appendSlot(start: buffer.byteCount, count: 0, kind: emptyIsNull ? .null : .string)
            openFieldCount += 1
            return
        }
        if length > largestField { largestField = length }
        var kind = FieldKind.string
        if !otherNullTokens.isEmpty {
            for token in otherNullTokens where token.count == length {
                let matches = token.withUnsafeBytes { token in
                    token.baseAddress.map { memcmp($0, pointer, length) == 0 } ?? false
                }
                if matches {
                    kind = .null
                    break
                }
            }
        }
        buffer.appendField(pointer, count: length, kind: kind, isQuoted: length == 0)
        openFieldCount += 1
    }

    @inline(__always)
    mutating func endRow(_ terminator: Int32) {
        let previous = lastTerminator
        lastTerminator = terminator
        if openFieldCount == 0 {
            // CSV_REPALL_NL reports every line end; one without fields is the LF of a CRLF or a blank line.
            // Nothing can stand between the two (it would be a field), so an LF right after a CR ends no line.
            let isLineFeedOfCRLF = terminator == 0x0A && previous == 0x0D
            if isLineFeedOfCRLF || skipsEmptyLines { return }
            let buffer = records.takeUnretainedValue()
            buffer.appendSlot(start: buffer.byteCount, count: 0, kind: emptyIsNull ? .null : .string)
            openFieldCount = 1
        }
        finished.append(
            FinishedRecord(firstSlot: openFirstSlot, count: openFieldCount, line: openLine, byteOffset: openByteOffset))
        let buffer = records.takeUnretainedValue()
        openFirstSlot = buffer.slotCount
        openByteStart = buffer.byteCount
        openFieldCount = 0
    }
}

/// libcsv's field callback: `data` is the reader's `CSVParseState`.
func csvFieldCallback(_ field: UnsafeMutableRawPointer?, _ length: Int, _ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    data.assumingMemoryBound(to: CSVParseState.self).pointee.addField(field.map { UnsafeRawPointer($0) }, length)
}

/// libcsv's row callback: `data` is the reader's `CSVParseState`.
func csvRowCallback(_ terminator: Int32, _ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    data.assumingMemoryBound(to: CSVParseState.self).pointee.endRow(terminator)
}

/// libcsv's space test when trimming is off: nothing is a space.
func csvNoSpace(_ character: UInt8) -> Int32 { 0 }
