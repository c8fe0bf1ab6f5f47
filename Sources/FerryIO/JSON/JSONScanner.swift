/// Why the scanner stopped before finishing what it was asked to scan.
///
/// Thrown as a typed error, so stopping costs no allocation: the reader's hot path relies on that.
enum JSONScanStop: Error {
    /// The window ended inside a token and more input may follow: refill, then scan again from the last commit.
    case needMore
    /// The input is malformed here.
    case malformed(JSONSyntaxError)
}

/// A malformed spot in JSON input: what is wrong and where, before the reader adds its path and record.
struct JSONSyntaxError {
    var code: FerryIOError.Code
    /// What was expected; never any of the input's text.
    var message: String
    /// The offset from the start of the input, from 0.
    var byteOffset: Int
    /// The line, from 1.
    var line: Int
    /// The column on ``line``, in bytes, from 1.
    var column: Int

    /// The public error for this spot in `file`, inside data record `record` when known.
    func ferryError(file: String?, record: Int?) -> FerryIOError {
        FerryIOError(
            code, message, file: file, line: line, column: column, byteOffset: byteOffset, record: record)
    }
}

/// A cursor over a window of JSON bytes: the tokenizer that the reader and ``JSONDocument`` share.
///
/// The window is `[cursor, end)`. When `isFinal` is false, more input may follow the window, so anything cut by
/// its end (a string, a number, `tru`…) stops with ``JSONScanStop/needMore`` instead of an error; the reader then
/// refills and scans again from its last commit. Decisions never depend on bytes past `end`, so a scan over a
/// longer window reaches the same result: that is what makes records independent of the read-buffer size.
///
/// Lines are counted in whitespace only, the one place JSON allows a raw line break. CR, LF and CRLF each end a
/// line.
struct JSONScanner {
    /// The window's first byte and its offset from the start of the input.
    let base: UnsafePointer<UInt8>
    let baseOffset: Int
    var cursor: UnsafePointer<UInt8>
    /// The end of the bytes the scanner may look at; the reader moves it closer to bound a record's size.
    var end: UnsafePointer<UInt8>
    /// Whether the input ends at `end`.
    var isFinal: Bool
    /// The current line (from 1) and the offset of its first byte.
    var line: Int
    var lineStart: Int
    /// Nesting allowed: arrays and objects open at once, counting the ones around a record.
    let maxDepth: Int
    /// Scratch per depth, borrowed from a ``JSONNesting`` that the caller keeps alive while scanning.
    let containers: UnsafeMutablePointer<UInt8>
    let prefixStarts: UnsafeMutablePointer<Int>
    let prefixCounts: UnsafeMutablePointer<Int>

    /// Creates a scanner over `[cursor, end)`; `base` is the window's first byte, at `baseOffset` in the input.
    init(
        base: UnsafePointer<UInt8>, baseOffset: Int, cursor: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>,
        isFinal: Bool, line: Int, lineStart: Int, nesting: JSONNesting
    ) {
        self.base = base
        self.baseOffset = baseOffset
        self.cursor = cursor
        self.end = end
        self.isFinal = isFinal
        self.line = line
        self.lineStart = lineStart
        self.maxDepth = nesting.maxDepth
        containers = nesting.containers
        prefixStarts = nesting.prefixStarts
        prefixCounts = nesting.prefixCounts
    }

    /// The offset of `pointer` from the start of the input.
    @inline(__always)
    func offset(of pointer: UnsafePointer<UInt8>) -> Int { baseOffset + (pointer - base) }

    /// The current position, to restore after looking ahead.
    var mark: (cursor: UnsafePointer<UInt8>, line: Int, lineStart: Int) { (cursor, line, lineStart) }

    /// Returns to a position taken with ``mark``.
    mutating func reset(to mark: (cursor: UnsafePointer<UInt8>, line: Int, lineStart: Int)) {
        cursor = mark.cursor
        line = mark.line
        lineStart = mark.lineStart
    }

    // MARK: Errors

    /// A malformed-input stop at `pointer`, which must be on the current line.
    func failure(_ code: FerryIOError.Code, _ message: String, at pointer: UnsafePointer<UInt8>) -> JSONScanStop {
        let byteOffset = offset(of: pointer)
        return .malformed(
            JSONSyntaxError(
                code: code, message: message, byteOffset: byteOffset, line: line, column: byteOffset - lineStart + 1))
    }

    /// The stop for a token that runs into the window's end: more input, or the input ended too early.
    func endOfWindow(expecting expectation: String) -> JSONScanStop {
        isFinal ? failure(.unexpectedEnd, "unexpected end of input; " + expectation, at: end) : .needMore
    }

    /// The stop for the byte at `pointer` where something else was expected.
    ///
    /// A NUL byte and a byte that does not start valid UTF-8 get their own codes, since no syntax can fix them.
    func unexpectedByte(at pointer: UnsafePointer<UInt8>, expecting expectation: String) -> JSONScanStop {
        let byte = pointer.pointee
        if byte == 0 { return failure(.nulByte, "NUL byte in the input; " + expectation, at: pointer) }
        if byte >= 0x80 {
            switch JSONBytes.checkSequence(at: pointer, available: end - pointer) {
            case .invalid: return failure(.invalidUTF8, "invalid UTF-8 byte sequence", at: pointer)
            case .incomplete where !isFinal: return .needMore
            case .incomplete:
                return failure(.invalidUTF8, "truncated UTF-8 sequence at the end of the input", at: pointer)
            case .valid: break
            }
        }
        return failure(.invalidJSON, expectation, at: pointer)
    }

    // MARK: Encoding

    /// Checks the input's first bytes, at the cursor: skips a UTF-8 byte-order mark, refuses UTF-16 and UTF-32.
    ///
    /// Input in those encodings without a mark starts with a NUL byte and fails as such where a value is expected.
    /// - Throws: a stop with `.unsupportedEncoding`, or ``JSONScanStop/needMore`` before four bytes are in.
    mutating func skipByteOrderMark() throws(JSONScanStop) {
        let available = end - cursor
        if available < 4 && !isFinal { throw .needMore }
        func byte(_ index: Int) -> Int { index < available ? Int(cursor[index]) : -1 }
        let isUTF16 = (byte(0) == 0xFE && byte(1) == 0xFF) || (byte(0) == 0xFF && byte(1) == 0xFE)
        let isUTF32BigEndian = byte(0) == 0 && byte(1) == 0 && byte(2) == 0xFE && byte(3) == 0xFF
        if isUTF16 || isUTF32BigEndian {
            throw failure(
                .unsupportedEncoding, "the input is UTF-16 or UTF-32 (byte-order mark); expected UTF-8", at: cursor)
        }
        if byte(0) == 0xEF && byte(1) == 0xBB && byte(2) == 0xBF {
            cursor += 3
            lineStart = offset(of: cursor)
        }
    }

    // MARK: Whitespace and single bytes

    /// Skips whitespace; returns whether a byte is left in the window at the cursor.
    ///
    /// A CR that ends the window stays unconsumed unless the input is final, so that a CRLF split by a refill still
    /// counts as one line end.
    @inline(__always)
    mutating func skipWhitespace() -> Bool {
        while cursor < end {
            let byte = cursor.pointee
            if byte > JSONBytes.space { return true }
            switch byte {
            case JSONBytes.space, JSONBytes.tab:
                cursor += 1
            case JSONBytes.lineFeed:
                cursor += 1
                line += 1
                lineStart = offset(of: cursor)
            case JSONBytes.carriageReturn:
                if cursor + 1 < end {
                    cursor += cursor[1] == JSONBytes.lineFeed ? 2 : 1
                } else if isFinal {
                    cursor += 1
                } else {
                    return false
                }
                line += 1
                lineStart = offset(of: cursor)
            default:
                return true
            }
        }
        return false
    }

    /// Skips whitespace and returns the next byte without consuming it.
    ///
    /// - Throws: ``JSONScanStop/needMore``, or `.unexpectedEnd` saying `expectation` when the input ends first.
    @inline(__always)
    mutating func peekToken(expecting expectation: @autoclosure () -> String) throws(JSONScanStop) -> UInt8 {
        if cursor < end && cursor.pointee > JSONBytes.space { return cursor.pointee }
        guard skipWhitespace() else { throw endOfWindow(expecting: expectation()) }
        return cursor.pointee
    }

    /// Consumes `byte` after optional whitespace.
    ///
    /// - Throws: a stop saying `expectation` when something else comes next.
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ expectation: @autoclosure () -> String) throws(JSONScanStop) {
        let found = try peekToken(expecting: expectation())
        guard found == byte else { throw unexpectedByte(at: cursor, expecting: expectation()) }
        cursor += 1
    }

    // MARK: Literals

    /// Scans `true`, `false` or `null` at the cursor and returns its kind and length.
    ///
    /// - Throws: a stop when the bytes are not one of the three literals.
    mutating func scanLiteral() throws(JSONScanStop) -> (kind: FieldKind, count: Int) {
        let literal: StaticString
        let kind: FieldKind
        switch cursor.pointee {
        case UInt8(ascii: "t"): literal = "true"; kind = .boolean
        case UInt8(ascii: "f"): literal = "false"; kind = .boolean
        default: literal = "null"; kind = .null
        }
        let count = literal.utf8CodeUnitCount
        let available = end - cursor
        let expected = literal.utf8Start
        for index in 0..<min(count, available) where cursor[index] != expected[index] {
            throw unexpectedByte(at: cursor + index, expecting: "expected a value (true, false or null)")
        }
        guard available >= count else { throw endOfWindow(expecting: "expected a value (true, false or null)") }
        cursor += count
        return (kind, count)
    }

    // MARK: Numbers

    /// Scans a number at the cursor and returns its length; the text is kept exactly as written.
    ///
    /// JSON's grammar: `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`. A number that reaches the end of a
    /// non-final window may go on, so it stops with ``JSONScanStop/needMore``.
    /// - Throws: a stop for a leading zero or a missing digit.
    mutating func scanNumber() throws(JSONScanStop) -> Int {
        let start = cursor
        var pointer = cursor
        if pointer.pointee == JSONBytes.minus { pointer += 1 }
        guard pointer < end else { throw endOfWindow(expecting: "expected a digit after '-'") }
        if pointer.pointee == JSONBytes.zero {
            pointer += 1
            if pointer < end && isDigit(pointer.pointee) {
                throw failure(
                    .invalidJSON, "leading zero in a number; expected '.', 'e' or the number's end", at: start)
            }
        } else if isDigit(pointer.pointee) {
            pointer = skipDigits(from: pointer + 1)
        } else {
            throw unexpectedByte(at: pointer, expecting: "expected a digit in a number")
        }
        if pointer < end && pointer.pointee == JSONBytes.dot {
            pointer += 1
            guard pointer < end else { throw endOfWindow(expecting: "expected a digit after the decimal point") }
            guard isDigit(pointer.pointee) else {
                throw unexpectedByte(at: pointer, expecting: "expected a digit after the decimal point")
            }
            pointer = skipDigits(from: pointer + 1)
        }
        if pointer < end && pointer.pointee | 0x20 == UInt8(ascii: "e") {
            pointer += 1
            if pointer < end && (pointer.pointee == JSONBytes.plus || pointer.pointee == JSONBytes.minus) {
                pointer += 1
            }
            guard pointer < end else { throw endOfWindow(expecting: "expected a digit in the exponent") }
            guard isDigit(pointer.pointee) else {
                throw unexpectedByte(at: pointer, expecting: "expected a digit in the exponent")
            }
            pointer = skipDigits(from: pointer + 1)
        }
        if pointer == end && !isFinal { throw .needMore }
        cursor = pointer
        return pointer - start
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- JSONBytes.zero < 10 }

    @inline(__always)
    private func skipDigits(from start: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var pointer = start
        while pointer < end && isDigit(pointer.pointee) { pointer += 1 }
        return pointer
    }

    /// The stop for an array or object that would open deeper than ``maxDepth``.
    func tooDeep(at pointer: UnsafePointer<UInt8>) -> JSONScanStop {
        failure(.depthExceeded, "nesting deeper than the limit of \(maxDepth) arrays and objects", at: pointer)
    }
}
