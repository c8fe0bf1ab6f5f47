extension JSONReader {
    /// How records sit in a JSON file.
    public enum Layout: Sendable, Hashable {
        /// One object per line (NDJSON, JSON Lines). Blank lines are skipped; LF and CRLF line ends both work; an
        /// object may not span lines, and nothing may follow it on its line.
        case ndjson
        /// A top-level array of objects, streamed element by element: `[{…}, {…}]`.
        case array
        /// A top-level object whose member values are the records: `{"a": {…}, "b": {…}}`. Each record's first
        /// field, named `keyField`, holds the member's name as a string (a field of the same name in the object is
        /// kept too, after it).
        case objectMembers(keyField: String)
        /// ``array`` when the first byte (after whitespace and a byte-order mark) is `[`,
        /// ``objectMembers(keyField:)`` with `keyField` ``memberNameField`` when it is `{`. NDJSON is never guessed.
        case automatic

        /// The field that holds each record's member name when an object of records is read with
        /// ``automatic``: `_key`.
        public static let memberNameField = "_key"
    }

    /// Where the reader is in its layout's grammar. Each state is a point where the reader may commit, so a
    /// refill never rescans more than the record in progress.
    enum State {
        case start, documentStart, ndjsonLine
        case firstElement, nextElement, afterElement
        case firstMember, nextMember, afterMember
        case documentEnd, finished
    }

    /// Runs the layout's grammar from the committed state to the next record or the end of the input.
    ///
    /// - Throws: ``JSONScanStop/needMore`` to refill and run again from the last commit, or a malformed stop.
    func advance(_ scanner: inout JSONScanner) throws(JSONScanStop) -> Record? {
        isInsideRecord = false
        while true {
            switch state {
            case .start:
                try scanner.skipByteOrderMark()
                moveOn(to: .documentStart, scanner)
            case .documentStart:
                try startDocument(&scanner)
            case .ndjsonLine:
                guard try nextByte(&scanner) != nil else { return finish(scanner) }
                if recordsRead > 0 && scanner.line == lastRecordLine {
                    throw scanner.failure(
                        .trailingGarbage, "expected a line break after a record (one JSON object per line)",
                        at: scanner.cursor)
                }
                return try readRecord(&scanner, depth: 0, then: .ndjsonLine, onOneLine: true)
            case .firstElement, .nextElement:
                let isFirst = state == .firstElement
                guard let byte = try nextByte(&scanner) else {
                    throw scanner.endOfWindow(
                        expecting: isFirst ? "expected a record or ']'" : "expected a record after ','")
                }
                if byte == JSONBytes.closeBracket && isFirst {
                    scanner.cursor += 1
                    moveOn(to: .documentEnd, scanner)
                    continue
                }
                return try readRecord(&scanner, depth: 1, then: .afterElement, onOneLine: false)
            case .afterElement:
                try readSeparator(&scanner, closing: JSONBytes.closeBracket, next: .nextElement)
            case .firstMember, .nextMember:
                let expectation =
                    state == .firstMember ? "expected a string key or '}'" : "expected a string key after ','"
                guard let byte = try nextByte(&scanner) else { throw scanner.endOfWindow(expecting: expectation) }
                if byte == JSONBytes.closeBrace && state == .firstMember {
                    scanner.cursor += 1
                    moveOn(to: .documentEnd, scanner)
                    continue
                }
                guard byte == JSONBytes.quote else {
                    throw scanner.unexpectedByte(at: scanner.cursor, expecting: expectation)
                }
                return try readMember(&scanner)
            case .afterMember:
                try readSeparator(&scanner, closing: JSONBytes.closeBrace, next: .nextMember)
            case .documentEnd:
                guard try nextByte(&scanner) != nil else { return finish(scanner) }
                throw scanner.failure(
                    .trailingGarbage, "expected the end of the input after the document", at: scanner.cursor)
            case .finished:
                return nil
            }
        }
    }

    /// Checks the document's first byte against the layout (resolving `.automatic`) and consumes the bracket.
    private func startDocument(_ scanner: inout JSONScanner) throws(JSONScanStop) {
        let expectation: String
        switch layout {
        case .ndjson: expectation = ""
        case .array: expectation = "expected an array of records"
        case .objectMembers: expectation = "expected an object whose members are records"
        case .automatic: expectation = "expected an array of records or an object whose members are records"
        }
        guard let byte = try nextByte(&scanner) else {
            if case .ndjson = layout {
                _ = finish(scanner)
                return
            }
            throw scanner.endOfWindow(expecting: expectation)
        }
        switch (layout, byte) {
        case (.ndjson, _):
            moveOn(to: .ndjsonLine, scanner)
            return
        case (.array, JSONBytes.openBracket), (.automatic, JSONBytes.openBracket):
            resolvedLayout = .array
            state = .firstElement
        case (.objectMembers, JSONBytes.openBrace), (.automatic, JSONBytes.openBrace):
            if case .automatic = layout { resolvedLayout = .objectMembers(keyField: Layout.memberNameField) }
            state = .firstMember
        default:
            throw notAnObject(scanner, expecting: expectation)
        }
        guard scanner.maxDepth >= 1 else { throw scanner.tooDeep(at: scanner.cursor) }
        scanner.cursor += 1
        commit(scanner)
    }

    /// Reads the object at the cursor as the next record.
    private func readRecord(
        _ scanner: inout JSONScanner, depth: Int, then next: State, onOneLine: Bool
    ) throws(JSONScanStop) -> Record {
        isInsideRecord = true
        guard scanner.cursor.pointee == JSONBytes.openBrace else {
            throw notAnObject(scanner, expecting: "expected an object as the record")
        }
        let start = scanner.mark
        let position = RecordPosition(
            record: recordsRead + 1, line: scanner.line, byteOffset: scanner.offset(of: scanner.cursor))
        try withinSizeLimit(&scanner) { (scanner: inout JSONScanner) throws(JSONScanStop) in
            try scanner.scanRecordObject(into: records, depth: depth, flattens: options.flattensNestedObjects)
        }
        if onOneLine && scanner.line != position.line {
            scanner.reset(to: start)
            throw scanner.failure(
                .invalidJSON, "a record spans more than one line; expected one JSON object per line",
                at: scanner.cursor)
        }
        return deliver(scanner, position: position, then: next)
    }

    /// Reads an `.objectMembers` record: the member's name, then its object.
    private func readMember(_ scanner: inout JSONScanner) throws(JSONScanStop) -> Record {
        isInsideRecord = true
        var position = RecordPosition(record: recordsRead + 1, line: 0, byteOffset: 0)
        try withinSizeLimit(&scanner) { (scanner: inout JSONScanner) throws(JSONScanStop) in
            let key = try scanner.scanString()
            try scanner.expect(JSONBytes.colon, "expected ':' after a record's key")
            _ = try scanner.peekToken(expecting: "expected an object as the record")
            guard scanner.cursor.pointee == JSONBytes.openBrace else {
                throw notAnObject(scanner, expecting: "expected an object as the record")
            }
            position.line = scanner.line
            position.byteOffset = scanner.offset(of: scanner.cursor)
            let name = JSONStringExtent(start: UnsafePointer(keyFieldName), count: keyFieldCount, hasEscapes: false)
            JSONScanner.appendField(to: records, prefix: 0, 0, key: name, value: key, kind: .string)
            try scanner.scanRecordObject(into: records, depth: 1, flattens: options.flattensNestedObjects)
        }
        return deliver(scanner, position: position, then: .afterMember)
    }

    /// Runs `scan` (a record's) over at most ``JSONReaderOptions/maxValueBytes`` bytes from the cursor.
    ///
    /// The scanner never sees past the limit, so a record that does not end within it fails at its start, the
    /// same way whatever the read-buffer size, and the window never holds much more than one record.
    @inline(__always)
    private func withinSizeLimit(
        _ scanner: inout JSONScanner, _ scan: (inout JSONScanner) throws(JSONScanStop) -> Void
    ) throws(JSONScanStop) {
        let start = scanner.mark
        let end = scanner.end
        let isFinal = scanner.isFinal
        let isLimited = end - scanner.cursor > options.maxValueBytes
        if isLimited {
            scanner.end = scanner.cursor + options.maxValueBytes
            scanner.isFinal = false
        }
        do {
            try scan(&scanner)
        } catch .needMore where isLimited {
            scanner.reset(to: start)
            throw scanner.failure(
                .fieldTooLarge, "a record is larger than the limit of \(options.maxValueBytes) bytes",
                at: scanner.cursor)
        }
        scanner.end = end
        scanner.isFinal = isFinal
    }

    /// Reads the `,` or closing bracket after a record.
    private func readSeparator(_ scanner: inout JSONScanner, closing: UInt8, next: State) throws(JSONScanStop) {
        let expectation =
            closing == JSONBytes.closeBracket
            ? "expected ',' or ']' after a record" : "expected ',' or '}' after a record"
        guard let byte = try nextByte(&scanner) else { throw scanner.endOfWindow(expecting: expectation) }
        switch byte {
        case JSONBytes.comma:
            scanner.cursor += 1
            moveOn(to: next, scanner)
        case closing:
            scanner.cursor += 1
            moveOn(to: .documentEnd, scanner)
        default:
            throw scanner.unexpectedByte(at: scanner.cursor, expecting: expectation)
        }
    }

    /// Skips whitespace, committing it, and returns the next byte, or `nil` at the end of the input.
    ///
    /// Committing here keeps long runs of blank lines out of the window.
    /// - Throws: ``JSONScanStop/needMore`` when the window ends before the input does.
    @inline(__always)
    private func nextByte(_ scanner: inout JSONScanner) throws(JSONScanStop) -> UInt8? {
        if scanner.skipWhitespace() { return scanner.cursor.pointee }
        commit(scanner)
        if scanner.isFinal { return nil }
        throw .needMore
    }

    /// Hands out the record just parsed and commits past it.
    @inline(__always)
    private func deliver(_ scanner: JSONScanner, position: RecordPosition, then next: State) -> Record {
        moveOn(to: next, scanner)
        isInsideRecord = false
        recordsRead += 1
        lastRecordLine = scanner.line
        return Record(buffer: records, firstSlot: 0, count: records.slotCount, position: position)
    }

    @inline(__always)
    private func moveOn(to next: State, _ scanner: JSONScanner) {
        state = next
        commit(scanner)
    }

    private func finish(_ scanner: JSONScanner) -> Record? {
        moveOn(to: .finished, scanner)
        return nil
    }

    /// The stop for a value at the cursor that is not what the layout needs: `.notAnObject` when it is a JSON
    /// value of another type (the file may be valid JSON, just not records), a syntax error otherwise.
    private func notAnObject(_ scanner: JSONScanner, expecting expectation: String) -> JSONScanStop {
        let found: String
        switch scanner.cursor.pointee {
        case JSONBytes.openBracket: found = "an array"
        case JSONBytes.openBrace: found = "an object"
        case JSONBytes.quote: found = "a string"
        case JSONBytes.minus, JSONBytes.zero...JSONBytes.nine: found = "a number"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): found = "a boolean"
        case UInt8(ascii: "n"): found = "null"
        default: return scanner.unexpectedByte(at: scanner.cursor, expecting: expectation)
        }
        return scanner.failure(.notAnObject, expectation + ", found " + found, at: scanner.cursor)
    }
}
