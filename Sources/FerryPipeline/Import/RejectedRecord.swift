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
        var fields: [[Any]] = []
        for index in 0..<record.count {
            let field = record[index]
            let name: Any = field.name ?? columnNames.flatMap { index < $0.count ? $0[index] : nil } ?? NSNull()
            fields.append([name, Int(field.kind.rawValue), field.string])
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields)) ?? Data("[]".utf8)
        self.init(
            file: file, position: record.position, reason: reason, fieldsJSON: String(decoding: data, as: UTF8.self))
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
