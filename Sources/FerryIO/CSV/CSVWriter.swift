/// Writes records as CSV (or TSV) with RFC 4180 quoting, to a file that appears only when finished.
///
/// A null is written as an empty unquoted field and an empty string as `""`, so reading the file back with
/// the default dialect (`nullTokens = [""]`) gives the same values. A first field that starts with U+FEFF is
/// quoted, so that the character stays data rather than read as a byte order mark. (A one-column record holding null is a
/// blank line; read such files with `skipsEmptyLines = false`.)
///
/// ```swift
/// let writer = try CSVWriter(path: "out.csv")
/// try writer.begin(columns: ["sku", "name"])
/// try writer.writeField("SKU-1")
/// try writer.writeField("Café, crème")     // written as "Café, crème"
/// try writer.endRecord()
/// try writer.finish()
/// ```
public final class CSVWriter: RecordWriter {
    /// When fields are quoted.
    public enum Quoting: Sendable {
        /// Only fields holding the delimiter, the quote, CR or LF (and empty strings, to tell them from null).
        case minimal
        /// Every non-null field.
        case always
    }

    /// What ends each record.
    public enum LineEnding: Sendable {
        case lf
        case crlf
    }

    private let output: OutputFile
    private let delimiter: UInt8
    private let quote: UInt8
    private let quoting: Quoting
    private let lineEnding: LineEnding
    private let writesHeader: Bool
    /// The writer's mutable state behind a stable pointer: it is touched for every field, and plain memory spares
    /// it Swift's dynamic exclusivity checks on class properties.
    private let state: UnsafeMutablePointer<State>
    /// Records written so far.
    public var recordsWritten: Int { state.pointee.recordsWritten }

    private struct State {
        var columnCount = 0
        var fieldIndex = 0
        /// Whether nothing was written yet: a field there that starts with U+FEFF is quoted, or a reader would take
        /// that character for a byte order mark and drop it.
        var isAtStart = true
        var recordsWritten = 0
    }

    /// Fields up to this size are checked, quoted and copied into the output's buffer in one step; larger ones go
    /// through separate writes.
    private static let inlineFieldBytes = 16 * 1024

    /// Creates a writer for `path` (`-` for standard output).
    ///
    /// - Parameters:
    ///   - path: the file to write, or `-` for standard output.
    ///   - dialect: supplies the delimiter, the quote and whether a header line is written.
    ///   - quoting: which fields are quoted.
    ///   - lineEnding: what ends each record.
    /// - Throws: ``FerryIOError`` when the output cannot be created.
    public convenience init(
        path: String, dialect: CSVDialect = .csv, quoting: Quoting = .minimal, lineEnding: LineEnding = .lf
    ) throws {
        try self.init(output: OutputFile(path: path), dialect: dialect, quoting: quoting, lineEnding: lineEnding)
    }

    /// Creates a writer on an opened output.
    public init(
        output: OutputFile, dialect: CSVDialect = .csv, quoting: Quoting = .minimal, lineEnding: LineEnding = .lf
    ) {
        self.output = output
        delimiter = dialect.delimiter
        quote = dialect.quote
        writesHeader = dialect.hasHeader
        self.quoting = quoting
        self.lineEnding = lineEnding
        state = .allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    public func begin(columns: [String]) throws {
        state.pointee.columnCount = columns.count
        guard writesHeader else { return }
        for column in columns { try writeField(column) }
        try endLine()
    }

    @inline(__always)
    public func writeField(_ bytes: UnsafeRawBufferPointer, kind: FieldKind) throws {
        let state = self.state
        let isFirstField = state.pointee.fieldIndex == 0
        state.pointee.fieldIndex += 1
        if kind == .null {
            if !isFirstField { try output.write(byte: delimiter) }
            state.pointee.isAtStart = false
            return
        }
        let count = bytes.count
        if quoting == .minimal, count > 0, count <= Self.inlineFieldBytes, !state.pointee.isAtStart,
            let source = bytes.baseAddress
        {
            // The delimiter, then the field as it is or quoted with its quotes doubled: at most 3 + 2 × count bytes.
            try output.withUnsafeSpace(atLeast: 3 + 2 * count) { space in
                guard let target = space.baseAddress else { return 0 }
                var written = 0
                if !isFirstField {
                    target.storeBytes(of: delimiter, as: UInt8.self)
                    written = 1
                }
                return written
                    + Self.copyField(source, count: count, to: target + written, delimiter: delimiter, quote: quote)
            }
            return
        }
        if !isFirstField { try output.write(byte: delimiter) }
        defer { state.pointee.isAtStart = false }
        if quoting == .always || bytes.isEmpty || needsQuotes(bytes)
            || (state.pointee.isAtStart && Self.startsWithBOM(bytes))
        {
            try writeQuoted(bytes)
        } else {
            try output.write(bytes)
        }
    }

    public func endRecord() throws {
        while state.pointee.fieldIndex < state.pointee.columnCount { try writeNull() }
        state.pointee.recordsWritten += 1
        try endLine()
    }

    public func finish() throws {
        try output.commit()
    }

    private func endLine() throws {
        if lineEnding == .crlf { try output.write(byte: 0x0D) }
        try output.write(byte: 0x0A)
        state.pointee.fieldIndex = 0
    }

    private static func startsWithBOM(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    @inline(__always)
    private func needsQuotes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte == delimiter || byte == quote || byte == 0x0A || byte == 0x0D {
            return true
        }
        return false
    }

    private func writeQuoted(_ bytes: UnsafeRawBufferPointer) throws {
        try output.write(byte: quote)
        var runStart = 0
        for index in 0..<bytes.count where bytes[index] == quote {
            // Write up to and including this quote, then double it.
            try output.write(UnsafeRawBufferPointer(rebasing: bytes[runStart...index]))
            try output.write(byte: quote)
            runStart = index + 1
        }
        try output.write(UnsafeRawBufferPointer(rebasing: bytes[runStart...]))
        try output.write(byte: quote)
    }
}
