extension JSONScanner {
    /// Validates the value at the cursor and appends its compact text to `output` (when given): insignificant
    /// whitespace dropped, every token (strings and numbers included) exactly as written.
    ///
    /// Any value goes: a scalar, or an array or object of any shape. Nesting is tracked in ``containers`` rather
    /// than by recursion, so a deep input cannot exhaust the stack; `depth` is the number of containers already
    /// open around the value. Runs between whitespace are copied in one go, so compact input costs one copy.
    /// - Throws: a stop for malformed input or nesting deeper than ``maxDepth``, or ``JSONScanStop/needMore``
    ///   when the window ends first (`output` then holds part of the value, to be dropped).
    mutating func compactValue(into output: RecordBuffer?, depth: Int) throws(JSONScanStop) {
        var runStart = cursor
        var level = 0
        var expectsValue = true
        while true {
            if expectsValue {
                let byte = try peekCompacting(&runStart, into: output, expecting: "expected a value")
                switch byte {
                case JSONBytes.quote:
                    _ = try scanString()
                case JSONBytes.minus, JSONBytes.zero...JSONBytes.nine:
                    _ = try scanNumber()
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    _ = try scanLiteral()
                case JSONBytes.openBracket, JSONBytes.openBrace:
                    guard depth + level < maxDepth else { throw tooDeep(at: cursor) }
                    level += 1
                    containers[depth + level] = byte
                    cursor += 1
                    let isArray = byte == JSONBytes.openBracket
                    let next = try peekCompacting(
                        &runStart, into: output,
                        expecting: isArray ? "expected a value or ']'" : "expected a string key or '}'")
                    if next == (isArray ? JSONBytes.closeBracket : JSONBytes.closeBrace) {
                        cursor += 1
                        level -= 1
                    } else {
                        if !isArray {
                            try scanMemberName(&runStart, into: output, expecting: "expected a string key or '}'")
                        }
                        continue
                    }
                default:
                    throw unexpectedByte(at: cursor, expecting: "expected a value")
                }
                expectsValue = false
            }
            if level == 0 { break }
            let isArray = containers[depth + level] == JSONBytes.openBracket
            let expectation =
                isArray ? "expected ',' or ']' after an array element" : "expected ',' or '}' after an object member"
            let byte = try peekCompacting(&runStart, into: output, expecting: expectation)
            if byte == JSONBytes.comma {
                cursor += 1
                if !isArray {
                    try scanMemberName(&runStart, into: output, expecting: "expected a string key after ','")
                }
                expectsValue = true
            } else if byte == (isArray ? JSONBytes.closeBracket : JSONBytes.closeBrace) {
                cursor += 1
                level -= 1
            } else {
                throw unexpectedByte(at: cursor, expecting: expectation)
            }
        }
        _ = output?.appendBytes(runStart, count: cursor - runStart)
    }

    /// Scans an object member's name and its colon, compacting.
    private mutating func scanMemberName(
        _ runStart: inout UnsafePointer<UInt8>, into output: RecordBuffer?, expecting expectation: String
    ) throws(JSONScanStop) {
        let byte = try peekCompacting(&runStart, into: output, expecting: expectation)
        guard byte == JSONBytes.quote else { throw unexpectedByte(at: cursor, expecting: expectation) }
        _ = try scanString()
        let colon = try peekCompacting(&runStart, into: output, expecting: "expected ':' after an object key")
        guard colon == JSONBytes.colon else {
            throw unexpectedByte(at: cursor, expecting: "expected ':' after an object key")
        }
        cursor += 1
    }

    /// ``peekToken(expecting:)`` for compaction: whitespace ends the current run, which goes to `output`.
    @inline(__always)
    private mutating func peekCompacting(
        _ runStart: inout UnsafePointer<UInt8>, into output: RecordBuffer?, expecting expectation: String
    ) throws(JSONScanStop) -> UInt8 {
        if cursor < end && cursor.pointee > JSONBytes.space { return cursor.pointee }
        let whitespaceStart = cursor
        let found = skipWhitespace()
        if cursor != whitespaceStart {
            _ = output?.appendBytes(runStart, count: whitespaceStart - runStart)
            runStart = cursor
        }
        guard found else { throw endOfWindow(expecting: expectation) }
        return cursor.pointee
    }
}
