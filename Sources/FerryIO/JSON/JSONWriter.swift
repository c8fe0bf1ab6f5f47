/// Writes records as JSON: NDJSON (one compact object per line) or one JSON array of compact objects, with the
/// keys given to ``begin(columns:)``.
///
/// Strings are JSON-escaped (`"`, `\` and control characters; non-ASCII text stays as it is); numbers, booleans
/// and ``FieldKind/json`` text are written as given; nulls, and columns a record does not reach, as `null`.
/// Output goes to a temporary file that ``finish()`` renames into place (see ``OutputFile``), so a reader never
/// sees half a file or an array without its closing bracket.
///
/// ```swift
/// let writer = try JSONWriter(path: "out.ndjson", layout: .ndjson)
/// try writer.begin(columns: ["sku", "price"])
/// try writer.writeField("SKU-1")
/// try writer.writeField(priceBytes, kind: .number)
/// try writer.endRecord()                  // {"sku":"SKU-1","price":12.50}
/// try writer.finish()
/// ```
public final class JSONWriter: RecordWriter {
    /// How the objects are laid out.
    public enum Layout: Sendable, Hashable {
        /// One object per line.
        case ndjson
        /// `[`, a line break, the objects separated by `,` and a line break, a line break, `]` and a final line
        /// break; no records give `[]` and a line break.
        case array
    }

    /// The destination path as given; `-` means standard output.
    public var path: String { encoder.output.path }
    /// Records written so far.
    public var recordsWritten: Int { encoder.recordsWritten }

    private let encoder: JSONObjectEncoder

    /// Creates a writer for `path`; `-` writes to standard output.
    ///
    /// - Throws: ``FerryIOError`` when the output cannot be created.
    public convenience init(path: String, layout: Layout) throws {
        self.init(output: try OutputFile(path: path), layout: layout)
    }

    /// Creates a writer on an opened output.
    public init(output: OutputFile, layout: Layout) {
        encoder = JSONObjectEncoder(output: output, layout: layout)
    }

    /// Takes the keys of every record, in order. Writes nothing yet.
    ///
    /// - Throws: nothing today; `throws` is the protocol's.
    public func begin(columns: [String]) throws {
        encoder.begin(columns: columns)
    }

    /// Writes the next field of the current record.
    ///
    /// - Throws: ``FerryIOError`` with ``FerryIOError/Code/unknownColumn`` past the last column,
    ///   ``FerryIOError/Code/invalidUTF8`` for a string that is not UTF-8, or an I/O error.
    public func writeField(_ bytes: UnsafeRawBufferPointer, kind: FieldKind) throws {
        try encoder.writeField(bytes, kind: kind)
    }

    /// Ends the current record; columns not written are `null`.
    ///
    /// - Throws: ``FerryIOError`` when writing fails.
    public func endRecord() throws {
        try encoder.endRecord()
    }

    /// Closes the array (for ``Layout/array``), flushes, syncs and renames the output into place.
    ///
    /// - Throws: ``FerryIOError`` when any step fails; the destination is then untouched.
    public func finish() throws {
        try encoder.finish()
    }
}
