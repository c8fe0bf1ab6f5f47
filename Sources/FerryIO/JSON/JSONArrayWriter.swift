/// Writes records as one JSON array of compact objects, keys from ``begin(columns:)``.
///
/// The layout is `[`, a line break, the objects separated by `,` and a line break, then a line break and `]` and a
/// final line break; no records give `[]` and a line break. Values are written as by ``NDJSONWriter``. Output goes
/// to a temporary file that ``finish()`` renames into place (see ``OutputFile``), so a reader never sees an array
/// without its closing bracket.
///
/// ```swift
/// let writer = try JSONArrayWriter(path: "out.json")
/// try writer.begin(columns: ["sku"])
/// try writer.writeField("SKU-1")
/// try writer.endRecord()
/// try writer.finish()                     // [\n{"sku":"SKU-1"}\n]\n
/// ```
public final class JSONArrayWriter: RecordWriter {
    /// The destination path as given; `-` means standard output.
    public var path: String { encoder.output.path }
    /// Records written so far.
    public var recordsWritten: Int { encoder.recordsWritten }

    private let encoder: JSONObjectEncoder

    /// Creates a writer for `path`; `-` writes to standard output.
    ///
    /// - Throws: ``FerryIOError`` when the output cannot be created.
    public convenience init(path: String) throws {
        self.init(output: try OutputFile(path: path))
    }

    /// Creates a writer on an opened output.
    public init(output: OutputFile) {
        encoder = JSONObjectEncoder(output: output, framing: .array)
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

    /// Closes the array, flushes, syncs and renames the output into place.
    ///
    /// - Throws: ``FerryIOError`` when any step fails; the destination is then untouched.
    public func finish() throws {
        try encoder.finish()
    }
}
