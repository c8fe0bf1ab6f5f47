import FerryIO

/// Writes rejected records to a file in the input's format, each followed by why and where it was refused:
/// CSV/TSV get the input's columns plus `_reason`, `_file`, `_record`, `_line`; JSON formats get the record's own
/// fields plus those four keys. Remove the four to replay the file.
enum RejectsFileWriter {
    /// The extra columns, in order.
    static let extraColumns = ["_reason", "_file", "_record", "_line"]

    /// Writes `rejects` to `path` in `format` (the file appears whole, when complete).
    ///
    /// - Parameter columns: the input's header names (CSV/TSV); `nil` takes the names the records carry.
    /// - Throws: ``FerryIOError`` when writing fails.
    static func write(_ rejects: [RejectedRecord], to path: String, format: RecordFormat, columns: [String]?) throws {
        let writer = try format.openWriter(path: path)
        var names = columns ?? []
        if columns == nil {
            for reject in rejects {
                for field in reject.fields {
                    if let name = field.name, !names.contains(name) { names.append(name) }
                }
            }
        }
        try writer.begin(columns: names + extraColumns)
        for reject in rejects {
            let fields = reject.fields
            for (index, name) in names.enumerated() {
                let field =
                    columns == nil
                    ? fields.first { $0.name == name } : (index < fields.count ? fields[index] : nil)
                guard let field else {
                    try writer.writeNull()
                    continue
                }
                var text = field.text
                try text.withUTF8 { try writer.writeField(UnsafeRawBufferPointer($0), kind: field.kind) }
            }
            try writer.writeField(reject.reason)
            try writer.writeField(reject.file)
            try writeNumber(reject.position.record, to: writer)
            try writeNumber(reject.position.line, to: writer)
            try writer.endRecord()
        }
        try writer.finish()
    }

    private static func writeNumber(_ number: Int, to writer: any RecordWriter) throws {
        var text = String(number)
        try text.withUTF8 { try writer.writeField(UnsafeRawBufferPointer($0), kind: .number) }
    }
}
