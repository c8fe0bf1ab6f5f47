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

    let records: UnsafeMutablePointer<RecordBuffer.Storage>
    let emptyIsNull: Bool
    let otherNullTokens: [[UInt8]]
    let skipsEmptyLines: Bool
    let maxFieldBytes: Int
    /// Whether fields keep their bytes; without them (``CSVReader/keepsFieldBytes``) a record is its field count.
    var keepsFieldBytes = true

    var finished: [FinishedRecord] = []
    /// Slot and byte where the record in progress starts in ``records``.
    var openFirstSlot = 0
    var openByteStart = 0
    var openFieldCount = 0
    /// Where the record in progress (or the next one) starts in the input.
    var openLine = 1
    var openByteOffset = 0
    /// Whether the line being fed ends with an LF right after a CR (a CRLF), set by the reader per line.
    /// An LF that libcsv reports without fields is then the second half of that line end, not a blank line.
    var lineEndIsCRLF = false
    /// The index in ``finished`` of the first record holding a field over the dialect's limit, checked by the
    /// reader after each call into libcsv (a callback cannot throw).
    var oversizedRecord: Int?

    init(records: RecordBuffer, dialect: CSVDialect) {
        self.records = records.storage
        emptyIsNull = dialect.nullTokens.contains("")
        otherNullTokens = dialect.nullTokens.filter { !$0.isEmpty }.map { Array($0.utf8) }
        skipsEmptyLines = dialect.skipsEmptyLines
        maxFieldBytes = dialect.maxFieldBytes
        finished.reserveCapacity(1024)
    }

    @inline(__always)
    mutating func addField(_ pointer: UnsafeRawPointer?, _ length: Int) {
        guard let pointer else {
            // CSV_EMPTY_IS_NULL: libcsv passes NULL for an unquoted empty field only.
            records.pointee.appendSlot(start: records.pointee.byteCount, count: 0, kind: emptyIsNull ? .null : .string)
            openFieldCount += 1
            return
        }
        if length > maxFieldBytes && oversizedRecord == nil { oversizedRecord = finished.count }
        guard keepsFieldBytes else {
            records.pointee.appendSlot(start: records.pointee.byteCount, count: 0, kind: .string)
            openFieldCount += 1
            return
        }
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
        let start = records.pointee.appendBytes(pointer, count: length)
        records.pointee.appendSlot(start: start, count: length, kind: kind, isQuoted: length == 0)
        openFieldCount += 1
    }

    @inline(__always)
    mutating func endRow(_ terminator: Int32) {
        if openFieldCount == 0 {
            // CSV_REPALL_NL reports every line end; one without fields is the LF of a CRLF or a blank line.
            // The reader says whether the LF follows its CR directly: spaces skipped by trimming may stand
            // between a CR and an LF, and then the LF ends a blank line of its own.
            let isLineFeedOfCRLF = terminator == 0x0A && lineEndIsCRLF
            if isLineFeedOfCRLF || skipsEmptyLines { return }
            records.pointee.appendSlot(start: records.pointee.byteCount, count: 0, kind: emptyIsNull ? .null : .string)
            openFieldCount = 1
        }
        finished.append(
            FinishedRecord(firstSlot: openFirstSlot, count: openFieldCount, line: openLine, byteOffset: openByteOffset))
        openFirstSlot = records.pointee.slotCount
        openByteStart = records.pointee.byteCount
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
