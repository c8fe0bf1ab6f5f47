import FerryStore
import Foundation

extension PackedRows {
    /// Appends `value` (or NULL) in the stored form of an attribute of `type` (see `StoredValueEncoder`). For
    /// values built off the hot path: defaults, constants, values checked against rules.
    mutating func append(_ value: AttributeValue?, as type: AttributeType) {
        guard let value else { return appendNull() }
        switch value {
        case .integer(let integer):
            switch type {
            case .double, .float, .date: appendReal(Double(integer))
            case .decimal, .string: appendText(String(integer))
            default: appendInteger(integer)
            }
        case .boolean(let flag): appendInteger(flag ? 1 : 0)
        case .double(let double): appendReal(double)
        case .date(let date): appendReal(date.timeIntervalSince1970)
        case .decimal(let decimal):
            var copy = decimal
            appendText(NSDecimalString(&copy, Locale(identifier: "en_US_POSIX")))
        case .string(let text): appendText(text)
        case .uuid(let uuid): appendText(uuid.uuidString.lowercased())
        case .uri(let url): appendText(url.absoluteString)
        case .binary(let data), .transformable(let data): data.withUnsafeBytes { appendBlob($0) }
        }
    }

    /// Appends a text cell holding `text`.
    mutating func appendText(_ text: String) {
        var text = text
        text.withUTF8 { appendText(UnsafeRawBufferPointer($0)) }
    }

    /// The value of a complete row's cell for an attribute of `type` (the inverse of ``append(_:as:)``), for
    /// context mode, which sets values on managed objects.
    func value(row: Int, column: Int, as type: AttributeType) -> AttributeValue? {
        let cell = cell(row: row, column: column)
        switch cell {
        case .absent, .null: return nil
        case .integer(let integer): return type == .boolean ? .boolean(integer != 0) : .integer(integer)
        case .real(let real): return type == .date ? .date(Date(timeIntervalSince1970: real)) : .double(real)
        case .text:
            let text = withBytes(of: cell) { String(decoding: $0, as: UTF8.self) }
            switch type {
            case .decimal: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) }
            case .uuid: return UUID(uuidString: text).map { .uuid($0) }
            case .uri: return URL(string: text).map { .uri($0) }
            default: return .string(text)
            }
        case .blob:
            return .binary(withBytes(of: cell) { Data($0) })
        }
    }
}
