/// Whole JSON documents held in memory: validation and compact re-emission, for conformance tests and tools.
///
/// Any top-level value is a document (RFC 8259), scalars included. The same tokenizer as ``JSONReader`` does the
/// work, so a document is accepted here exactly when the reader would accept it as a value: strict UTF-8, no lone
/// surrogates, no raw control characters in strings, JSON's number grammar, a depth limit, nothing after the
/// value but whitespace. A UTF-8 byte-order mark is skipped; UTF-16 and UTF-32 are refused.
///
/// ```swift
/// let compact = try JSONDocument.compact(bytes)   // "[1, 2]\n" → "[1,2]"
/// ```
package enum JSONDocument {
    /// Checks that `bytes` hold exactly one JSON value.
    ///
    /// - Parameter maxDepth: the most arrays and objects open at once.
    /// - Throws: ``FerryIOError`` saying where (line, column, byte offset) and what was expected.
    package static func validate(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) throws {
        try parse(bytes, maxDepth: maxDepth, into: nil)
    }

    /// Returns the value in `bytes` without insignificant whitespace; strings and numbers keep their exact text.
    ///
    /// Compact input comes back byte for byte.
    /// - Parameter maxDepth: the most arrays and objects open at once.
    /// - Throws: ``FerryIOError`` when `bytes` are not one JSON value, as ``validate(_:maxDepth:)``.
    package static func compact(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) throws -> [UInt8] {
        let output = RecordBuffer(byteCapacity: bytes.count, slotCapacity: 4)
        try parse(bytes, maxDepth: maxDepth, into: output)
        return Array(UnsafeRawBufferPointer(start: output.bytes, count: output.byteCount))
    }

    /// Scans the one value in `bytes`, appending its compact text to `output` when given.
    private static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int, into output: RecordBuffer?) throws {
        precondition(maxDepth >= 0, "maxDepth must not be negative")
        guard let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else {
            throw FerryIOError(
                .unexpectedEnd, "unexpected end of input; expected a JSON value", line: 1, column: 1, byteOffset: 0)
        }
        let nesting = JSONNesting(maxDepth: maxDepth)
        // The scanner borrows the nesting scratch; keep its owner alive for the whole scan.
        let stop: JSONScanStop? = withExtendedLifetime(nesting) {
            var scanner = JSONScanner(
                base: start, baseOffset: 0, cursor: start, end: start + bytes.count, isFinal: true, line: 1,
                lineStart: 0, nesting: nesting)
            do throws(JSONScanStop) {
                try scanner.skipByteOrderMark()
                _ = try scanner.peekToken(expecting: "expected a JSON value")
                try scanner.compactValue(into: output, depth: 0)
                if scanner.skipWhitespace() {
                    throw scanner.failure(
                        .trailingGarbage, "expected the end of the input after the JSON value", at: scanner.cursor)
                }
                return nil
            } catch {
                return error
            }
        }
        switch stop {
        case nil: return
        case .malformed(let error): throw error.ferryError(file: nil, record: nil)
        case .needMore: preconditionFailure("a final window never needs more input")
        }
    }
}
