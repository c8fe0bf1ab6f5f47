/// A streaming source of records, read one at a time with a cursor.
///
/// Readers keep memory constant however large the input: a record handed out by ``next()`` is a view into
/// reused storage and is valid until the following call.
public protocol RecordReader: AnyObject {
    /// The column names from the input's header (CSV), or `nil` when records name their own fields (JSON).
    var columnNames: [String]? { get }
    /// The path the reader reads, `-` for standard input.
    var path: String { get }
    /// Bytes consumed from the input so far, for progress reporting.
    var bytesRead: Int { get }

    /// Reads the next record, or returns `nil` at the end of the input.
    ///
    /// - Throws: ``FerryIOError`` with the position and what was expected when the input is malformed, or
    ///   with ``FerryIOError/Code/io`` when reading fails.
    func next() throws -> Record?
}
