/// A streaming sink of records: CSV, NDJSON or a JSON array.
///
/// Fields are written one at a time, in column order, so that writing never builds a record in memory:
///
/// ```swift
/// let writer = try CSVWriter(path: "out.csv")
/// try writer.begin(columns: ["sku", "price"])
/// try writer.writeField(skuBytes, kind: .string)
/// try writer.writeField(priceBytes, kind: .number)
/// try writer.endRecord()
/// try writer.finish()          // the file appears only now
/// ```
public protocol RecordWriter: AnyObject {
    /// Starts the output; `columns` names the fields of every record, in order.
    ///
    /// - Throws: ``FerryIOError`` when writing fails.
    func begin(columns: [String]) throws

    /// Writes the next field of the current record; the first call after ``endRecord()`` starts a record.
    ///
    /// `bytes` is the value's UTF-8 text: a number's or boolean's JSON text, compact JSON for ``FieldKind/json``,
    /// ignored for ``FieldKind/null``.
    /// - Throws: ``FerryIOError`` when writing fails, or with ``FerryIOError/Code/unknownColumn`` when the
    ///   record has more fields than ``begin(columns:)`` named.
    func writeField(_ bytes: UnsafeRawBufferPointer, kind: FieldKind) throws

    /// Ends the current record; columns not written are written as null.
    ///
    /// - Throws: ``FerryIOError`` when writing fails.
    func endRecord() throws

    /// Completes the output and moves it into place (see ``OutputFile/commit()``).
    ///
    /// - Throws: ``FerryIOError`` when flushing, syncing or renaming fails.
    func finish() throws
}

extension RecordWriter {
    /// Writes a field read from any ``RecordReader``, keeping its kind.
    public func writeField(_ field: Field) throws {
        let kind = field.kind
        try field.withUnsafeBytes { try writeField($0, kind: kind) }
    }

    /// Writes a null as the next field.
    public func writeNull() throws {
        try writeField(UnsafeRawBufferPointer(start: nil, count: 0), kind: .null)
    }

    /// Writes a string as the next field.
    public func writeField(_ text: String) throws {
        var text = text
        try text.withUTF8 { try writeField(UnsafeRawBufferPointer($0), kind: .string) }
    }

    /// Writes every field of `record`, in order, as one record.
    public func write(_ record: Record) throws {
        for index in 0..<record.count { try writeField(record[index]) }
        try endRecord()
    }
}
