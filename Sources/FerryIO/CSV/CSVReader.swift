internal import CLibCSV

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Reads CSV or TSV records from a file or standard input, streaming, on libcsv's push parser.
///
/// Input goes through one fixed read buffer, so memory stays flat however large the file; fields are
/// handed out as borrowed bytes (see ``Record``). Handles a UTF-8 BOM, LF, CRLF and CR line ends, quoted
/// delimiters, quotes and newlines, and a last record without a line end. Every record knows its number,
/// line and byte offset, and every error says where it is and what was expected.
///
/// Errors come in input order, whatever the read-buffer size: every record before a malformed spot is handed
/// out first. A malformed spot (quoting, encoding, an oversized field) ends the input: `next()` throws its
/// error again on every later call. A record with the wrong number of fields throws
/// ``FerryIOError/Code/fieldCount`` for that record only (``FerryIOError/isRecoverable``), and reading can go on with
/// the next one.
///
/// ```swift
/// let reader = try CSVReader(path: "products.csv")
/// print(reader.columnNames ?? [])
/// while let record = try reader.next() {
///     print(record.position.line, record[0].string)
/// }
/// ```
public final class CSVReader: RecordReader {
    public let path: String
    /// The dialect the reader was opened with.
    public let dialect: CSVDialect
    /// The header's names, or `nil` when the dialect has no header. Empty for an empty input.
    public private(set) var columnNames: [String]?
    public private(set) var bytesRead = 0
    /// Data records handed out so far.
    public private(set) var recordsRead = 0
    /// Malformed spots repaired in lenient mode (always 0 in strict mode, which throws instead).
    public private(set) var repairs = 0
    /// Whether data records keep their fields' bytes (the default). Turned off, fields parsed from then on read as
    /// empty strings and only the records, their field counts, positions and errors are left: what counting needs,
    /// without a copy of each field. The header keeps its names, and the records parsed with it in the same read keep
    /// their bytes.
    public var keepsFieldBytes: Bool {
        get { state.pointee.keepsFieldBytes }
        set { state.pointee.keepsFieldBytes = newValue }
    }

    private let input: InputFile
    private let records = RecordBuffer()
    private let parser: UnsafeMutablePointer<csv_parser>
    private let state: UnsafeMutablePointer<CSVParseState>
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let options: UInt8
    private var deliverIndex = 0
    private var inputEnded = false
    private var expectedFieldCount: Int?
    private var isReadingHeader = false
    /// The malformed input (or failed read) found while parsing ahead. It is thrown once every record before
    /// it has been handed out, so what a caller receives does not depend on the read-buffer size, and it is
    /// thrown again by every later call, since the parser cannot go on past it.
    private var failure: FerryIOError?

    // Position of the next byte fed to libcsv.
    private var offset = 0
    private var line = 1
    private var lineStart = 0
    private var lastFedByteWasCR = false
    private var validator = UTF8Validator()
    /// Where the quoted field in progress opened (strict mode), for the error when the input ends inside it.
    private var openQuote: (line: Int, column: Int, byteOffset: Int)?
    /// The first bytes, held until the encoding (BOM) is known.
    private var prefix: [UInt8]? = []

    /// Opens `path` (`-` for standard input) and reads the header when the dialect has one.
    ///
    /// - Parameters:
    ///   - path: the file to read, or `-` for standard input.
    ///   - dialect: the delimiter, quote, header and null tokens.
    ///   - readBufferSize: bytes read from the input at a time.
    /// - Throws: ``FerryIOError`` when the file cannot be opened or its header is malformed.
    public convenience init(path: String, dialect: CSVDialect = .csv, readBufferSize: Int = 256 * 1024) throws {
        try self.init(input: InputFile(path: path), dialect: dialect, readBufferSize: readBufferSize)
    }

    /// Reads from an opened input and reads the header when the dialect has one.
    ///
    /// - Throws: ``FerryIOError`` when the header is malformed or reading fails.
    public init(input: InputFile, dialect: CSVDialect = .csv, readBufferSize: Int = 256 * 1024) throws {
        precondition(readBufferSize > 0, "readBufferSize must be positive")
        self.input = input
        self.path = input.path
        self.dialect = dialect
        readBuffer = .allocate(byteCount: readBufferSize, alignment: 16)
        parser = .allocate(capacity: 1)
        state = .allocate(capacity: 1)
        state.initialize(to: CSVParseState(records: records, dialect: dialect))
        // CSV_STRICT even in lenient mode: libcsv then stops at each malformed quote, so that the reader can
        // repair it (as libcsv's own lenient mode would) and count the repair.
        var options = UInt8(CSV_EMPTY_IS_NULL | CSV_REPALL_NL | CSV_STRICT)
        if dialect.isStrict { options |= UInt8(CSV_STRICT_FINI) }
        self.options = options
        guard csv_init(parser, options) == 0 else {
            preconditionFailure("csv_init failed for valid options")
        }
        csv_set_delim(parser, dialect.delimiter)
        csv_set_quote(parser, dialect.quote)
        if !dialect.trimsSpaces { csv_set_space_func(parser, ferry_csv_no_space) }
        // libcsv grows its field buffer by this many bytes at a time; its default (128) makes big fields slow.
        csv_set_blk_size(parser, 64 * 1024)
        if dialect.hasHeader {
            isReadingHeader = true
            defer { isReadingHeader = false }
            if let header = try nextFinishedRecord() {
                columnNames = (0..<header.count).map { Field(buffer: records, slot: header.firstSlot + $0).string }
                expectedFieldCount = header.count
            } else {
                columnNames = []
            }
        }
    }

    deinit {
        csv_free(parser)
        parser.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
        readBuffer.deallocate()
    }

    /// Reads the next data record, or returns `nil` at the end of the input.
    ///
    /// - Throws: ``FerryIOError`` with the position of the malformed spot (thrown again by every later call),
    ///   or with ``FerryIOError/Code/fieldCount`` for a record of the wrong width (reading may go on).
    public func next() throws -> Record? {
        guard let finished = try nextFinishedRecord() else { return nil }
        recordsRead += 1
        let position = RecordPosition(record: recordsRead, line: finished.line, byteOffset: finished.byteOffset)
        if let expectedFieldCount {
            if finished.count != expectedFieldCount && !dialect.allowsRaggedRows {
                let source = dialect.hasHeader ? "header" : "first record"
                var error = FerryIOError(
                    .fieldCount, "expected \(expectedFieldCount) fields (as in the \(source)), found \(finished.count)",
                    file: path, line: finished.line, column: 1, byteOffset: finished.byteOffset, record: recordsRead)
                error.isRecoverable = true
                throw error
            }
        } else {
            expectedFieldCount = finished.count
        }
        return Record(buffer: records, firstSlot: finished.firstSlot, count: finished.count, position: position)
    }

    /// The next record libcsv has finished, parsing more input as needed.
    ///
    /// - Throws: the error found while parsing, once the records before it have been handed out.
    private func nextFinishedRecord() throws -> CSVParseState.FinishedRecord? {
        while true {
            if deliverIndex < state.pointee.finished.count {
                deliverIndex += 1
                return state.pointee.finished[deliverIndex - 1]
            }
            if var failure {
                // Every finished record has been handed out, so the failure lies in the next one.
                let isAboutRecord = failure.code != .io && failure.code != .unsupportedEncoding
                if failure.record == nil && !isReadingHeader && isAboutRecord {
                    failure.record = recordsRead + 1
                    self.failure = failure
                }
                throw failure
            }
            if inputEnded { return nil }
            discardDeliveredRecords()
            do {
                try parseMoreInput()
            } catch let error as FerryIOError {
                failure = error
            }
        }
    }

    /// Drops every handed-out record from the storage, keeping the record in progress.
    private func discardDeliveredRecords() {
        records.discard(beforeSlot: state.pointee.openFirstSlot, beforeByte: state.pointee.openByteStart)
        state.pointee.openFirstSlot = 0
        state.pointee.openByteStart = 0
        state.pointee.finished.removeAll(keepingCapacity: true)
        deliverIndex = 0
    }

    private func parseMoreInput() throws {
        let count = try input.read(into: readBuffer)
        guard count > 0 else {
            if let prefix {
                try prefix.withUnsafeBytes { try startInput(with: $0) }
            }
            try finishInput()
            return
        }
        bytesRead += count
        let chunk = UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])
        if prefix == nil {
            try feed(chunk)
        } else {
            prefix?.append(contentsOf: chunk)
            if let held = prefix, held.count >= 4 {
                try held.withUnsafeBytes { try startInput(with: $0) }
            }
        }
    }

    /// Checks the byte-order mark in the first bytes, then feeds them.
    private func startInput(with first: UnsafeRawBufferPointer) throws {
        prefix = nil
        let bytes = Array(first.prefix(4))
        func starts(with mark: [UInt8]) -> Bool { bytes.starts(with: mark) }
        if starts(with: [0x00, 0x00, 0xFE, 0xFF]) || starts(with: [0xFF, 0xFE, 0x00, 0x00])
            || starts(with: [0xFE, 0xFF]) || starts(with: [0xFF, 0xFE])
        {
            throw FerryIOError(
                .unsupportedEncoding, "the input is UTF-16 or UTF-32 (byte-order mark); expected UTF-8",
                file: path, line: 1, column: 1, byteOffset: 0)
        }
        var skipped = 0
        if starts(with: [0xEF, 0xBB, 0xBF]) {
            skipped = 3
            offset = 3
            lineStart = 3
            state.pointee.openByteOffset = 3
        }
        try feed(UnsafeRawBufferPointer(rebasing: first[skipped...]))
    }

    /// Feeds a chunk to libcsv one line at a time, so every record start and error has an exact line.
    ///
    /// The chunk's UTF-8 is checked first, in one pass; the bytes before a problem are fed, so that the records
    /// before it are handed out, and the error then points at the broken character.
    private func feed(_ chunk: UnsafeRawBufferPointer) throws {
        guard chunk.baseAddress != nil else { return }
        guard let (index, problem) = validator.validate(chunk) else {
            return try feedLines(chunk)
        }
        try feedLines(UnsafeRawBufferPointer(rebasing: chunk[..<index]))
        // Point at the start of the broken character, which may lie in an earlier chunk of this line.
        let start = offset - validator.incompleteByteCount
        throw FerryIOError(
            problem == .nulByte ? .nulByte : .invalidUTF8,
            problem == .nulByte ? "NUL byte in the input; expected text" : "invalid UTF-8 byte sequence",
            file: path, line: line, column: start - lineStart + 1, byteOffset: start)
    }

    /// Feeds valid UTF-8 to libcsv one line at a time.
    private func feedLines(_ chunk: UnsafeRawBufferPointer) throws {
        guard let base = chunk.baseAddress else { return }
        let count = chunk.count
        let hasCR = memchr(base, 0x0D, count) != nil
        var position = 0
        while position < count {
            var end = count
            if let lineFeed = memchr(base + position, 0x0A, count - position) {
                end = base.distance(to: UnsafeRawPointer(lineFeed)) + 1
            }
            if hasCR, let carriageReturn = memchr(base + position, 0x0D, end - position) {
                let index = base.distance(to: UnsafeRawPointer(carriageReturn))
                let followedByLineFeed =
                    index + 1 < count && base.load(fromByteOffset: index + 1, as: UInt8.self) == 0x0A
                if !followedByLineFeed { end = index + 1 }
            }
            try feedSegment(UnsafeRawBufferPointer(start: base + position, count: end - position))
            position = end
        }
    }

    /// Feeds bytes that end at most one line (at their last byte).
    private func feedSegment(_ segment: UnsafeRawBufferPointer) throws {
        guard let base = segment.baseAddress, segment.count > 0 else { return }
        // A record starts at the start of a line. (With trimming, libcsv skips leading spaces without leaving
        // its row-not-begun state, so a chunk that ends in them must not move the record's start.)
        if parser.pointee.pstate == LibCSVState.rowNotBegun && state.pointee.openFieldCount == 0
            && offset == lineStart
        {
            state.pointee.openLine = line
            state.pointee.openByteOffset = offset
        }
        let last = base.load(fromByteOffset: segment.count - 1, as: UInt8.self)
        state.pointee.lineEndIsCRLF =
            last == 0x0A
            && (segment.count > 1
                ? base.load(fromByteOffset: segment.count - 2, as: UInt8.self) == 0x0D : lastFedByteWasCR)
        let slotsBefore = records.slotCount
        var fed = 0
        while fed < segment.count {
            let consumed = csv_parse(
                parser, base + fed, segment.count - fed, csvFieldCallback, csvRowCallback, state)
            fed += consumed
            if fed < segment.count {
                try recoverFromParseError(at: base + fed, index: fed)
                fed += 1
            }
        }
        try checkFieldSize()
        if dialect.isStrict { noteOpenQuote(in: segment, fieldEnded: records.slotCount != slotsBefore) }
        offset += segment.count
        if last == 0x0A {
            let completesCRLF = segment.count == 1 && lastFedByteWasCR
            if !completesCRLF { line += 1 }
            lineStart = offset
        } else if last == 0x0D {
            line += 1
            lineStart = offset
        }
        lastFedByteWasCR = last == 0x0D
    }

    /// Throws the positioned error for a byte libcsv refused, or (lenient mode) repairs it and counts that.
    private func recoverFromParseError(at byte: UnsafeRawPointer, index: Int) throws {
        let status = csv_error(parser)
        let absolute = offset + index
        guard status == CSV_EPARSE else {
            throw FerryIOError(
                .io, "libcsv failed: \(String(cString: csv_strerror(status)))", file: path, line: line,
                byteOffset: absolute)
        }
        if dialect.isStrict {
            // libcsv refuses a byte in two states: in an unquoted field (a quote) and after the quote that
            // closes a quoted field (anything but a delimiter or line end, or a quote after spaces).
            let isUnquotedField = parser.pointee.pstate == LibCSVState.fieldBegun && parser.pointee.quoted == 0
            let message =
                isUnquotedField
                ? "quote inside an unquoted field; expected the field to be quoted and its quotes doubled"
                : "unexpected character after a closing quote; expected a delimiter or the end of the line"
            throw FerryIOError(
                .malformedQuote, message, file: path, line: line, column: absolute - lineStart + 1,
                byteOffset: absolute)
        }
        // Lenient: let libcsv take this one byte without CSV_STRICT, as its non-strict mode would.
        repairs += 1
        parser.pointee.status = 0
        csv_set_opts(parser, options & ~UInt8(CSV_STRICT))
        let consumed = csv_parse(parser, byte, 1, csvFieldCallback, csvRowCallback, state)
        csv_set_opts(parser, options)
        guard consumed == 1 else {
            throw FerryIOError(
                .io, "libcsv failed: \(String(cString: csv_strerror(csv_error(parser))))", file: path, line: line,
                byteOffset: absolute)
        }
    }

    /// Fails when the field in progress, or one just finished, is larger than the dialect allows.
    ///
    /// The error points at the start of the record holding the field; that record is never handed out.
    private func checkFieldSize() throws {
        // libcsv's buffer may hold bytes that the field will lose: the quote that might close a quoted field
        // (state FIELD_MIGHT_HAVE_ENDED) and trailing spaces that trimming drops. Leave them out, so the check
        // does not depend on where a chunk happens to end.
        let pending = parser.pointee.spaces + (parser.pointee.pstate == LibCSVState.fieldMightHaveEnded ? 1 : 0)
        let inProgress = parser.pointee.entry_pos - min(pending, parser.pointee.entry_pos)
        if let oversized = state.pointee.oversizedRecord {
            state.pointee.finished.removeSubrange(oversized...)
        } else if inProgress <= dialect.maxFieldBytes {
            return
        }
        throw FerryIOError(
            .fieldTooLarge,
            "a field is larger than the limit of \(dialect.maxFieldBytes) bytes (an unclosed quote?)",
            file: path, line: state.pointee.openLine, column: 1, byteOffset: state.pointee.openByteOffset)
    }

    /// Remembers where the quoted field in progress at the end of `segment` opened, when it opened in it.
    ///
    /// Strict mode only: there, the raw bytes of a quoted field are its value with each quote doubled, so the
    /// opening quote is found by walking back over as many value bytes as libcsv holds.
    private func noteOpenQuote(in segment: UnsafeRawBufferPointer, fieldEnded: Bool) {
        let pstate = parser.pointee.pstate
        let isInField = pstate == LibCSVState.fieldBegun || pstate == LibCSVState.fieldMightHaveEnded
        guard parser.pointee.quoted != 0 && isInField else {
            openQuote = nil
            return
        }
        // Unless a field ended in this segment, the quoted field is the one already noted.
        guard openQuote == nil || fieldEnded else { return }
        var remaining = parser.pointee.entry_pos
        var index = segment.count
        if pstate == LibCSVState.fieldMightHaveEnded {
            // The quote that might close the field, and spaces after it, are held as they were read.
            let held = min(parser.pointee.spaces + 1, remaining)
            remaining -= held
            index -= held
        }
        let quote = dialect.quote
        while remaining > 0 && index > 0 {
            let isDoubledQuote = index >= 2 && segment[index - 1] == quote && segment[index - 2] == quote
            index -= isDoubledQuote ? 2 : 1
            remaining -= 1
        }
        guard remaining == 0 && index > 0 && segment[index - 1] == quote else {
            // Not expected to happen; fall back to the start of the record.
            openQuote = nil
            return
        }
        let absolute = offset + index - 1
        openQuote = (line, absolute - lineStart + 1, absolute)
    }

    /// Ends the input: libcsv submits a last record without a line end, or reports an unclosed quote.
    private func finishInput() throws {
        inputEnded = true
        if !validator.isComplete {
            let start = offset - validator.incompleteByteCount
            throw FerryIOError(
                .invalidUTF8, "the input ends inside a UTF-8 byte sequence", file: path, line: line,
                column: start - lineStart + 1, byteOffset: start)
        }
        let wasInQuotedField = parser.pointee.quoted != 0 && parser.pointee.pstate == LibCSVState.fieldBegun
        if csv_fini(parser, csvFieldCallback, csvRowCallback, state) != 0 {
            let start = openQuote ?? (state.pointee.openLine, 1, state.pointee.openByteOffset)
            throw FerryIOError(
                .unterminatedQuote,
                "unterminated quoted field; expected a closing quote before the end of the input",
                file: path, line: start.line, column: start.column, byteOffset: start.byteOffset)
        }
        if wasInQuotedField { repairs += 1 }
        try checkFieldSize()
    }
}

/// The values of libcsv's `csv_parser.pstate` (private to libcsv.c, stable since libcsv 3.0).
enum LibCSVState {
    /// No field of the row has begun.
    static let rowNotBegun: Int32 = 0
    /// Inside a field (`quoted` says whether it opened with a quote).
    static let fieldBegun: Int32 = 2
    /// A quote was read in a quoted field: it closes the field, or a second quote follows.
    static let fieldMightHaveEnded: Int32 = 3
}
