public import FerryIO
import Foundation

/// A record the import refused, kept as it was read with where it came from and why.
///
/// Its fields are kept as JSON (`[[name, kind, text], …]`, name `null` for CSV columns without a header name) so
/// the ledger can hold it and a rejects file can reproduce it in the input's format, ready to be fixed and replayed.
public struct RejectedRecord: Sendable, Hashable {
    /// The input file (`-` for standard input).
    public var file: String
    /// Where the record starts in it.
    public var position: RecordPosition
    /// Why it was refused, naming the column and what was expected.
    public var reason: String
    /// The record's fields as read (see the type's description).
    public var fieldsJSON: String

    /// A reject read back from the ledger.
    public init(file: String, position: RecordPosition, reason: String, fieldsJSON: String) {
        self.file = file
        self.position = position
        self.reason = reason
        self.fieldsJSON = fieldsJSON
    }

    /// A reject of `record` (copied now: the record is valid only until its reader moves on).
    init(record: Record, file: String, reason: String, columnNames: [String]?) {
        let fields = (0..<record.count).map { index in
            let field = record[index]
            return RawField(
                name: field.name ?? columnNames.flatMap { index < $0.count ? $0[index] : nil }, kind: field.kind,
                text: field.string)
        }
        self.init(file: file, position: record.position, reason: reason, fieldsJSON: Self.fieldsJSON(fields))
    }

    /// One field as read: its name (JSON, or the CSV header's), kind and text.
    struct RawField {
        var name: String?
        var kind: FieldKind
        var text: String
    }

    /// The fields JSON of a record read as `fields`: the one place a reject's fields are written.
    ///
    /// A CSV field read as null through a token (such as `NA`) keeps its text, as a string: the rejects file then
    /// shows the record as read, and reading it again gives null again. (Only such a field is null with text: a
    /// JSON `null` and an empty CSV field hold none.)
    static func fieldsJSON(_ fields: [RawField]) -> String {
        let entries: [[Any]] = fields.map { field in
            let kind = field.kind == .null && !field.text.isEmpty ? FieldKind.string : field.kind
            return [field.name ?? NSNull(), Int(kind.rawValue), field.text]
        }
        let data = (try? JSONSerialization.data(withJSONObject: entries)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The field that holds a skipped record's text as read (a malformed NDJSON line), in the ledger and the
    /// rejects file.
    public static let recordTextField = "_raw"

    /// A reject of a record its reader skipped as malformed (``FerryIOError/isRecoverable``): the reader's message
    /// with its line and column, and the record's text under ``recordTextField`` when the reader kept it.
    ///
    /// - Parameter record: the record's number when the error does not say.
    init(skipped error: FerryIOError, file: String, record: Int) {
        var fields = "[]"
        if let text = error.recordText,
            let data = try? JSONSerialization.data(
                withJSONObject: [[Self.recordTextField, Int(FieldKind.string.rawValue), text]])
        {
            fields = String(decoding: data, as: UTF8.self)
        }
        let place = [error.line.map { "line \($0)" }, error.column.map { "column \($0)" }].compactMap { $0 }
        self.init(
            file: file,
            position: RecordPosition(
                record: error.record ?? record, line: error.line ?? 0, byteOffset: error.byteOffset ?? 0),
            reason: (place.isEmpty ? "" : place.joined(separator: ", ") + ": ") + error.message, fieldsJSON: fields)
    }

    /// The fields: name (or `nil`), kind and text.
    public var fields: [(name: String?, kind: FieldKind, text: String)] {
        guard let array = try? JSONSerialization.jsonObject(with: Data(fieldsJSON.utf8)) as? [[Any]] else { return [] }
        return array.map { entry in
            let kind = (entry.count > 1 ? entry[1] as? Int : nil).flatMap { FieldKind(rawValue: UInt8($0)) } ?? .string
            return (entry.first as? String, kind, entry.count > 2 ? entry[2] as? String ?? "" : "")
        }
    }
}
