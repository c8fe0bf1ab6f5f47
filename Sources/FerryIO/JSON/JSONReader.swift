#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Reads records from JSON: NDJSON lines, a top-level array of objects, or a top-level object whose members are
/// records. Streaming, on a hand-written tokenizer over raw bytes.
///
/// Each JSON object is one record whose fields carry their names (``Field/name``) and their JSON kind: strings
/// unescaped (surrogate pairs included), numbers exactly as written, booleans as `true`/`false`, null without
/// bytes, arrays as compact JSON text, nested objects as compact JSON text or, with
/// ``JSONReaderOptions/flattensNestedObjects``, as fields named by key path (`address.city`). A key that appears
/// twice in an object gives two fields, in order; ``Record/field(named:)`` finds the first.
///
/// Input goes through one read buffer into a window that holds at most the record in progress and one read, so
/// memory stays flat however large the file; a record may cross reads at any byte. Fields are borrowed bytes,
/// valid until the next call to ``next()`` (see ``Record``), and parsing a record of scalars allocates nothing.
/// Every record knows its number, the line and byte offset of its `{`, and every error says where it is and what
/// was expected. A UTF-8 byte-order mark is skipped.
///
/// In NDJSON a malformed line is one bad record: its error is ``FerryIOError/isRecoverable``, carries the line's
/// text (``FerryIOError/recordText``) and counts as a record, and the next call reads on from the following line.
/// Invalid UTF-8 and NUL bytes still end the input, as does any error in an array or object layout, where nothing
/// marks a safe place to go on from.
///
/// ```swift
/// let reader = try JSONReader(path: "orders.json", layout: .automatic)
/// while let record = try reader.next() {
///     print(record.position.line, record.field(named: "order_id")?.string ?? "-")
/// }
/// ```
public final class JSONReader: RecordReader {
    /// The path the reader reads, `-` for standard input.
    public let path: String
    /// The layout the reader was opened with.
    public let layout: Layout
    /// The layout in use: ``layout``, or for `.automatic` the one the document's first byte chose (still
    /// `.automatic` before the first call to ``next()``).
    public internal(set) var resolvedLayout: Layout
    /// The options the reader was opened with.
    public let options: JSONReaderOptions
    /// Always `nil`: JSON records name their own fields.
    public var columnNames: [String]? { nil }
    /// Bytes read from the input so far, for progress reporting.
    public private(set) var bytesRead = 0
    /// Records handed out so far.
    public internal(set) var recordsRead = 0

    private let input: InputFile
    let records = RecordBuffer()
    private let readBufferSize: Int

    // The window: input bytes from `windowOffset`; `consumed` is the last commit, `filled` the end.
    private var window: UnsafeMutablePointer<UInt8>
    /// The window's size: it holds the record in progress and one read, never the whole input.
    private(set) var windowCapacity: Int
    private var windowOffset = 0
    private var consumed = 0
    private var filled = 0
    private var inputEnded = false
    // Position of the commit.
    private var line = 1
    private var lineStart = 0

    /// Where the reader is in the layout's grammar; see `JSONReader+Layout.swift`.
    var state = State.start
    /// Whether the scan in progress is inside a record, so that its errors carry the record's number.
    var isInsideRecord = false
    /// The line where the last NDJSON record ended, so that another one cannot follow on it.
    var lastRecordLine = 0
    /// The error that stopped the reader, thrown again by every later call.
    private var failure: FerryIOError?
    /// The error of the malformed NDJSON line being skipped, and the line's text so far.
    private var skippedLine: FerryIOError?
    private var skippedText: [UInt8] = []

    /// Scratch for the tokenizer, one entry per depth.
    private let nesting: JSONNesting
    /// The key field's name for `.objectMembers` (and `.automatic`), UTF-8.
    let keyFieldName: UnsafeMutablePointer<UInt8>
    let keyFieldCount: Int

    /// Opens `path` (`-` for standard input).
    ///
    /// - Parameters:
    ///   - path: the file to read, or `-` for standard input.
    ///   - layout: how records sit in the file; `.automatic` looks at the first byte.
    ///   - options: nesting, flattening and size limits.
    ///   - readBufferSize: bytes read from the input at a time.
    /// - Throws: ``FerryIOError`` when the file cannot be opened.
    public convenience init(
        path: String, layout: Layout = .automatic, options: JSONReaderOptions = JSONReaderOptions(),
        readBufferSize: Int = 256 * 1024
    ) throws {
        try self.init(input: InputFile(path: path), layout: layout, options: options, readBufferSize: readBufferSize)
    }

    /// Reads from an opened input. Nothing is read until the first call to ``next()``.
    ///
    /// - Throws: nothing today; `throws` keeps the initializer in step with ``CSVReader``'s.
    public init(
        input: InputFile, layout: Layout = .automatic, options: JSONReaderOptions = JSONReaderOptions(),
        readBufferSize: Int = 256 * 1024
    ) throws {
        precondition(readBufferSize > 0, "readBufferSize must be positive")
        self.input = input
        self.path = input.path
        self.layout = layout
        self.options = options
        self.readBufferSize = readBufferSize
        resolvedLayout = layout
        windowCapacity = max(2 * readBufferSize, 64 * 1024)
        window = .allocate(capacity: windowCapacity)
        nesting = JSONNesting(maxDepth: options.maxDepth)
        var keyField = Layout.memberNameField
        if case .objectMembers(let name) = layout { keyField = name }
        keyFieldCount = keyField.utf8.count
        keyFieldName = .allocate(capacity: max(keyFieldCount, 1))
        _ = UnsafeMutableBufferPointer(start: keyFieldName, count: keyFieldCount).initialize(from: keyField.utf8)
        records.fieldsHaveNames = true
    }

    deinit {
        window.deallocate()
        keyFieldName.deallocate()
    }

    /// Reads the next record, or returns `nil` at the end of the input.
    ///
    /// The record is valid until the next call. After an error, every later call throws the same error, unless
    /// it is ``FerryIOError/isRecoverable`` (a malformed NDJSON line, skipped): then the next call reads on.
    /// - Throws: ``FerryIOError`` with the position and what was expected when the input is malformed or not
    ///   records (``FerryIOError/Code/notAnObject``), or with ``FerryIOError/Code/io`` when reading fails.
    public func next() throws -> Record? {
        if let failure { throw failure }
        records.removeAll()
        while true {
            var scanner = makeScanner()
            do throws(JSONScanStop) {
                guard let skipped = skippedLine else { return try advance(&scanner) }
                try skipLine(&scanner, through: skipped.line ?? line)
            } catch .needMore {
                records.truncate(slotCount: 0, byteCount: 0)
                try refill()
                continue
            } catch .malformed(let error) {
                if state == .ndjsonLine && error.code != .nulByte && error.code != .invalidUTF8 {
                    // The text is readable and the line's end is a safe place to go on from: skip this line alone.
                    skippedLine = error.ferryError(file: path, record: recordsRead + 1)
                    continue
                }
                let failure = error.ferryError(file: path, record: isInsideRecord ? recordsRead + 1 : nil)
                self.failure = failure
                throw failure
            }
            throw endSkippedLine()
        }
    }

    /// Moves past a malformed NDJSON line from its first byte: through the line breaks before `errorLine`, then
    /// to the end of that line, leaving its line break to the next record's whitespace. The first
    /// ``JSONReaderOptions/maxValueBytes`` bytes are kept for ``FerryIOError/recordText``; the rest is committed
    /// as it goes, so a long line never fills the window.
    ///
    /// - Throws: ``JSONScanStop/needMore`` when the window ends before the line does.
    private func skipLine(_ scanner: inout JSONScanner, through errorLine: Int) throws(JSONScanStop) {
        if skippedText.isEmpty {
            // The bad record starts after the whitespace before it, which the last commit may not have passed.
            let found = scanner.skipWhitespace()
            commit(scanner)
            guard found else {
                if scanner.isFinal { return }
                throw .needMore
            }
        }
        let start = scanner.cursor
        defer {
            let kept = min(scanner.cursor - start, options.maxValueBytes - skippedText.count)
            if kept > 0 { skippedText.append(contentsOf: UnsafeBufferPointer(start: start, count: kept)) }
            commit(scanner)
        }
        while scanner.cursor < scanner.end {
            let byte = scanner.cursor.pointee
            guard byte == JSONBytes.lineFeed || byte == JSONBytes.carriageReturn else {
                scanner.cursor += 1
                continue
            }
            if scanner.line >= errorLine { return }
            // A line break inside the bad record (the error is on a later line): step over it as whitespace does.
            guard scanner.skipWhitespace() else { break }
        }
        if !scanner.isFinal { throw .needMore }
    }

    /// The error of the line just skipped, with its text; the line counts as a record.
    private func endSkippedLine() -> FerryIOError {
        var error = skippedLine ?? FerryIOError(.invalidJSON, "malformed line", file: path)
        error.isRecoverable = true
        error.recordText = String(decoding: skippedText, as: UTF8.self)
        skippedLine = nil
        skippedText = []
        recordsRead += 1
        lastRecordLine = line
        return error
    }

    /// A scanner over the window from the last commit.
    private func makeScanner() -> JSONScanner {
        JSONScanner(
            base: UnsafePointer(window), baseOffset: windowOffset, cursor: UnsafePointer(window + consumed),
            end: UnsafePointer(window + filled), isFinal: inputEnded, line: line, lineStart: lineStart,
            nesting: nesting)
    }

    /// Makes the scanner's position the point the next scan starts from.
    @inline(__always)
    func commit(_ scanner: JSONScanner) {
        consumed = scanner.cursor - scanner.base
        line = scanner.line
        lineStart = scanner.lineStart
    }

    /// Reads more input after the committed bytes, first moving them to the front of the window.
    ///
    /// One read at a time keeps every split point reachable; once the part in progress is past 4 KiB, reads go on
    /// until it has doubled, so that scanning a large record again after each refill stays linear overall. The
    /// part in progress is one record at most, which ``JSONReaderOptions/maxValueBytes`` bounds.
    private func refill() throws {
        precondition(!inputEnded, "the tokenizer asked for more input after its end")
        if consumed > 0 {
            let kept = filled - consumed
            if kept > 0 { memmove(window, window + consumed, kept) }
            windowOffset += consumed
            filled = kept
            consumed = 0
        }
        let wanted = filled > 4096 ? max(readBufferSize, filled) : readBufferSize
        var added = 0
        while added < wanted {
            if filled + readBufferSize > windowCapacity { growWindow(to: filled + readBufferSize) }
            let count = try input.read(
                into: UnsafeMutableRawBufferPointer(start: window + filled, count: readBufferSize))
            if count == 0 {
                inputEnded = true
                return
            }
            filled += count
            added += count
            bytesRead += count
        }
    }

    private func growWindow(to needed: Int) {
        var capacity = windowCapacity
        while capacity < needed { capacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.initialize(from: window, count: filled)
        window.deallocate()
        window = grown
        windowCapacity = capacity
    }
}
