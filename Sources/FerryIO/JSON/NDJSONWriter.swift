/// Writes records as NDJSON: one compact JSON object per line, keys from ``begin(columns:)``.
///
/// Strings are JSON-escaped (`"`, `\` and control characters; non-ASCII text stays as it is); numbers, booleans
/// and ``FieldKind/json`` text are written as given; nulls, and columns a record does not reach, as `null`.
/// Output goes to a temporary file that ``finish()`` renames into place (see ``OutputFile``).
///
/// ```swift
/// let writer = try NDJSONWriter(path: "out.ndjson")
/// try writer.begin(columns: ["sku", "price"])
/// try writer.writeField("SKU-1")
/// try writer.writeField(priceBytes, kind: .number)
/// try writer.endRecord()                  // {"sku":"SKU-1","price":12.50}
/// try writer.finish()
/// ```
public final class NDJSONWriter: RecordWriter {
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
        encoder = JSONObjectEncoder(output: output, framing: .lines)
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

    /// Ends the current record and its line; columns not written are `null`.
    ///
    /// - Throws: ``FerryIOError`` when writing fails.
    public func endRecord() throws {
        try encoder.endRecord()
    }

    /// Flushes, syncs and renames the output into place.
    ///
    /// - Throws: ``FerryIOError`` when any step fails; the destination is then untouched.
    public func finish() throws {
        try encoder.finish()
    }
}
