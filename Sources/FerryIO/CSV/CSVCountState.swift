/// What libcsv's callbacks write into while ``CSVSegmentCounter`` parses: only what counting needs (records, the
/// width of each, blank lines and the LF of a CRLF), so a field costs one increment and one comparison.
///
/// It decides blank lines and the LF of a CRLF as ``CSVParseState`` does, from the callbacks alone: with trimming
/// off (the only dialects counted this way), libcsv reports a line end without fields only for a line end it reads
/// in the row-not-begun state, so an LF reported without fields right after a CR line end directly follows that CR.
struct CSVCountState {
    /// Records finished (header included), after blank lines are skipped or made one-field records.
    var records = 0
    /// Fields of the record in progress.
    var fieldCount = 0
    /// Whether the last line end libcsv reported was a CR.
    var lastLineEndWasCR = false
    /// The width of the first record finished, or -1 before it.
    var firstWidth = -1
    /// Whether a record finished with a width other than ``firstWidth``.
    var widthsDiffer = false
    /// Whether a field was larger than ``maxFieldBytes``.
    var hasOversizedField = false
    let skipsEmptyLines: Bool
    let maxFieldBytes: Int

    init(dialect: CSVDialect) {
        skipsEmptyLines = dialect.skipsEmptyLines
        maxFieldBytes = dialect.maxFieldBytes
    }

    @inline(__always)
    mutating func addField(_ length: Int) {
        fieldCount += 1
        if length > maxFieldBytes { hasOversizedField = true }
    }

    @inline(__always)
    mutating func endRow(_ terminator: Int32) {
        let wasCR = lastLineEndWasCR
        lastLineEndWasCR = terminator == 0x0D
        if fieldCount == 0 {
            // The LF of a CRLF, or a blank line: one empty field, or nothing when blank lines are skipped.
            if (terminator == 0x0A && wasCR) || skipsEmptyLines { return }
            fieldCount = 1
        }
        if firstWidth < 0 {
            firstWidth = fieldCount
        } else if fieldCount != firstWidth {
            widthsDiffer = true
        }
        records += 1
        fieldCount = 0
    }
}

/// libcsv's field callback for counting: `data` is a ``CSVCountState``.
func csvCountFieldCallback(_ field: UnsafeMutableRawPointer?, _ length: Int, _ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    data.assumingMemoryBound(to: CSVCountState.self).pointee.addField(length)
}

/// libcsv's row callback for counting: `data` is a ``CSVCountState``.
func csvCountRowCallback(_ terminator: Int32, _ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    data.assumingMemoryBound(to: CSVCountState.self).pointee.endRow(terminator)
}
