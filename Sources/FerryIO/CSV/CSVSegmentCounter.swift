internal import CLibCSV

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Counts the records of byte ranges of one file with its own libcsv parser, read buffer and UTF-8 check: one
/// part of ``CSVRecordCounter``'s work, used by one thread at a time.
///
/// It starts as a parser at the start of the input would, so its counts hold only when the range it starts at
/// begins a line outside any quoted field; ``isAtRecordStart`` tells whether the range it ended at does. Anything
/// that a ``CSVReader`` would report (a quote libcsv refuses, bad UTF-8, a NUL byte, an oversized field, a failed
/// read, an open quote at the end) stops it and sets ``isAbandoned``: the count is then left to a ``CSVReader``.
final class CSVSegmentCounter: @unchecked Sendable {
    // @unchecked: a segment counter is used by one thread at a time (its own part, then the caller's thread after
    // every part has ended).
    private let parser: UnsafeMutablePointer<csv_parser>
    private let state: UnsafeMutablePointer<CSVCountState>
    private let buffer: UnsafeMutableRawBufferPointer
    private var validator = UTF8Validator()
    private let maxFieldBytes: Int
    /// Whether counting stopped at something only a ``CSVReader`` reports exactly.
    private(set) var isAbandoned = false

    /// A counter for `dialect` (trimming off) reading `readBufferSize` bytes at a time.
    init(dialect: CSVDialect, readBufferSize: Int) {
        precondition(!dialect.trimsSpaces, "counting by segments needs trimming off")
        maxFieldBytes = dialect.maxFieldBytes
        buffer = .allocate(byteCount: readBufferSize, alignment: 16)
        parser = .allocate(capacity: 1)
        state = .allocate(capacity: 1)
        state.initialize(to: CSVCountState(dialect: dialect))
        // The options of CSVReader, so that libcsv parses (and refuses) exactly the same bytes.
        var options = UInt8(CSV_EMPTY_IS_NULL | CSV_REPALL_NL | CSV_STRICT)
        if dialect.isStrict { options |= UInt8(CSV_STRICT_FINI) }
        guard csv_init(parser, options) == 0 else {
            preconditionFailure("csv_init failed for valid options")
        }
        csv_set_delim(parser, dialect.delimiter)
        csv_set_quote(parser, dialect.quote)
        csv_set_space_func(parser, ferry_csv_no_space)
        csv_set_blk_size(parser, 64 * 1024)
    }

    deinit {
        csv_free(parser)
        parser.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
        buffer.deallocate()
    }

    /// Records finished so far (a header included).
    var records: Int { state.pointee.records }
    /// The width of the first record finished, or -1 before it.
    var firstWidth: Int { state.pointee.firstWidth }
    /// Whether a record finished with another width than the first.
    var widthsDiffer: Bool { state.pointee.widthsDiffer }

    /// Whether the parser stands where a new line would start a record: no field or quote is open, as at the
    /// start of the input.
    var isAtRecordStart: Bool {
        parser.pointee.pstate == LibCSVState.rowNotBegun && state.pointee.fieldCount == 0 && validator.isComplete
    }

    /// Parses the bytes `range` of `descriptor`, after whatever this counter parsed before.
    ///
    /// - Parameter parsed: called after each block with the bytes and records added by it.
    func parse(descriptor: Int32, range: Range<Int>, parsed: (_ bytes: Int, _ records: Int) -> Void = { _, _ in }) {
        guard let base = buffer.baseAddress else { return }
        var offset = range.lowerBound
        while offset < range.upperBound && !isAbandoned {
            let wanted = min(buffer.count, range.upperBound - offset)
            let count = pread(descriptor, base, wanted, off_t(offset))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                // A failed read, or a file that shrank: a CSVReader reports it.
                isAbandoned = true
                return
            }
            let recordsBefore = state.pointee.records
            parseBlock(UnsafeRawBufferPointer(start: base, count: count))
            offset += count
            parsed(count, state.pointee.records - recordsBefore)
        }
    }

    /// Ends the input: libcsv finishes a last record without a line end.
    func finish() {
        guard !isAbandoned else { return }
        // An open quoted field at the end is an error (strict) or a repair (lenient): a CSVReader reports either.
        let isInQuotedField = parser.pointee.quoted != 0 && parser.pointee.pstate == LibCSVState.fieldBegun
        if !validator.isComplete || isInQuotedField
            || csv_fini(parser, csvCountFieldCallback, csvCountRowCallback, state) != 0
        {
            isAbandoned = true
            return
        }
        checkState()
    }

    private func parseBlock(_ block: UnsafeRawBufferPointer) {
        guard let base = block.baseAddress else { return }
        if validator.validate(block) != nil {
            isAbandoned = true
            return
        }
        let consumed = csv_parse(parser, base, block.count, csvCountFieldCallback, csvCountRowCallback, state)
        if consumed != block.count {
            isAbandoned = true
            return
        }
        checkState()
    }

    /// Stops at an oversized field, finished or in progress (libcsv holds the field in progress in memory).
    private func checkState() {
        if state.pointee.hasOversizedField || parser.pointee.entry_pos > maxFieldBytes { isAbandoned = true }
    }
}
