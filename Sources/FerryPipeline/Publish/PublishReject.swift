import FerryIO

/// A record PostgreSQL refused: its row number in the publish's order, its COPY text and PostgreSQL's reason.
public struct PublishReject: Sendable, Hashable {
    /// The row's number (from 1) in the order the publish sends rows.
    public var row: Int
    /// The row as it was sent, in COPY's text format (tab-separated, `\N` for NULL).
    public var record: String
    /// PostgreSQL's message, SQLSTATE and context.
    public var reason: String

    /// Writes `rejects` to `path` as CSV with the columns `_row`, `_reason`, `record` (the file appears whole).
    ///
    /// - Throws: `FerryIOError` when writing fails.
    static func write(_ rejects: [PublishReject], to path: String) throws {
        let writer = try RecordFormat.csv.openWriter(path: path)
        try writer.begin(columns: ["_row", "_reason", "record"])
        for reject in rejects {
            try writer.writeField(String(reject.row))
            try writer.writeField(reject.reason)
            try writer.writeField(reject.record)
            try writer.endRecord()
        }
        try writer.finish()
    }
}
