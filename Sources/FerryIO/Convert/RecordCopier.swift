/// Copies every record of a reader to a writer: the engine of `ferry convert`.
///
/// Columns are given (see ``collectFieldNames(from:)``), or come from the reader's header (CSV) or, for readers
/// whose records name their fields (JSON), from the first record's field names; a CSV read without a header gets
/// `column1`, `column2`, … Named records are matched to the columns by name: a missing field is written as null,
/// and a field that is not a column is an error (``FerryIOError/Code/unknownColumn``), so nothing is dropped
/// silently.
public struct RecordCopier {
    /// Called every `progressInterval` records with the number copied so far and the bytes read.
    public typealias Progress = (_ records: Int, _ bytesRead: Int) -> Void

    private let reader: any RecordReader
    private let writer: any RecordWriter
    private let columns: [String]?

    /// Creates a copier between an opened reader and writer.
    ///
    /// - Parameters:
    ///   - reader: where the records come from.
    ///   - writer: where they go.
    ///   - columns: the output's columns; `nil` takes them from the input as described above.
    public init(from reader: any RecordReader, to writer: any RecordWriter, columns: [String]? = nil) {
        self.reader = reader
        self.writer = writer
        self.columns = columns
    }

    /// Every field name of every record, in first-seen order: the columns that lose nothing when JSON records
    /// with differing keys become CSV. Reads `reader` to its end.
    ///
    /// - Throws: ``FerryIOError`` from the reader.
    public static func collectFieldNames(from reader: any RecordReader) throws -> [String] {
        if let names = reader.columnNames { return names }
        var known: [[UInt8]] = []
        while let record = try reader.next() {
            for index in 0..<record.count {
                let field = record[index]
                // Records usually repeat the same keys in the same order: check that spot first.
                if index < known.count && known[index].withUnsafeBufferPointer({ field.nameEquals($0) }) { continue }
                if known.contains(where: { name in name.withUnsafeBufferPointer { field.nameEquals($0) } }) { continue }
                known.append(field.withUnsafeNameBytes { Array($0) })
            }
        }
        return known.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Copies all records and finishes the writer (the output appears only when everything succeeded).
    ///
    /// - Returns: the number of records written.
    /// - Throws: ``FerryIOError`` from the reader or writer, or ``FerryIOError/Code/unknownColumn``.
    public func copyAll(progressInterval: Int = 100_000, progress: Progress? = nil) throws -> Int {
        var copied = 0
        var columns: [[UInt8]]?
        if let names = self.columns ?? reader.columnNames {
            columns = names.map { Array($0.utf8) }
            try writer.begin(columns: names)
        }
        while let record = try reader.next() {
            if columns == nil {
                let names = Self.columnNames(of: record)
                columns = names.map { Array($0.utf8) }
                try writer.begin(columns: names)
            }
            if record.count > 0, record[0].name != nil, let columns {
                try writeByName(record, columns: columns)
            } else {
                do {
                    try writer.write(record)
                } catch let error as FerryIOError where error.code == .unknownColumn {
                    // A ragged row longer than the header: say where it is in the input, not the output.
                    throw FerryIOError(
                        .fieldCount,
                        "the record has \(record.count) fields, more than the \(columns?.count ?? 0) columns of the "
                            + "first record; a JSON output names every field by its column, so the extra ones have no "
                            + "key (a CSV or TSV output keeps them)",
                        file: reader.path, line: record.position.line, byteOffset: record.position.byteOffset,
                        record: record.position.record)
                }
            }
            copied += 1
            if let progress, copied % progressInterval == 0 { progress(copied, reader.bytesRead) }
        }
        if columns == nil { try writer.begin(columns: []) }
        try writer.finish()
        return copied
    }

    /// The columns of the first record: its field names, a repeated one once (the first value of a repeated key
    /// is the one read, as an import reads it).
    private static func columnNames(of record: Record) -> [String] {
        var seen: Set<String> = []
        return (0..<record.count).map { record[$0].name ?? Record.positionalName(ofField: $0) }
            .filter { seen.insert($0).inserted }
    }

    /// Writes a named record in column order; fast when its fields come in that order already. A repeated key's
    /// first value is written (its later ones are ignored, as an import ignores them).
    private func writeByName(_ record: Record, columns: [[UInt8]]) throws {
        var matched = 0
        // While every column so far was the field at its own position, no earlier field can share the next
        // column's name, so the field at that position is the first of its name.
        var isInOrder = true
        for (index, column) in columns.enumerated() {
            let found = column.withUnsafeBufferPointer { wanted -> Field? in
                if isInOrder && index < record.count && record[index].nameEquals(wanted) { return record[index] }
                isInOrder = false
                for other in 0..<record.count where record[other].nameEquals(wanted) { return record[other] }
                return nil
            }
            if let found {
                matched += 1
                try writer.writeField(found)
            } else {
                try writer.writeNull()
            }
        }
        if matched < record.count {
            // A field no column names, unless every unmatched field repeats a key.
            let known = Set(columns)
            let extra = (0..<record.count).first { index in
                !known.contains(record[index].withUnsafeNameBytes { Array($0) })
            }
            guard let extra else { return try writer.endRecord() }
            let name = record[extra].name ?? "?"
            throw FerryIOError(
                .unknownColumn,
                "field '\(name)' is not among the \(columns.count) columns taken from the first record "
                    + "(standard input is read once; convert a file to collect every record's keys first)",
                file: reader.path, line: record.position.line, byteOffset: record.position.byteOffset,
                record: record.position.record)
        }
        try writer.endRecord()
    }
}
