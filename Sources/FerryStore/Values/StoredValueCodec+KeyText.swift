package import FerrySQLite
import Foundation

/// The key text of a value: the text form of a natural key, by which an import matches its records with stored
/// rows (a full sync's "keys not seen", a context-mode chunk's objects by key). It is a function of the *stored*
/// form, so a record's key (packed, or an attribute value encoded by the codec) and a stored row's key read the same
/// text, and it is registered on the store's connections as the SQL function `ferry_key_text(part, …)`, so SQL
/// reads it with this very code.
///
/// - INTEGER (integers, booleans): decimal digits, `-12`, `1`.
/// - REAL (doubles, floats, dates as seconds): Swift's shortest round-trip text, `0.1`, `1e+20`,
///   `1767603600.25`; both zeros are `0.0` (SQLite may keep `-0.0` as the integer 0, and an index finds either).
/// - TEXT (strings, decimals, UUIDs, URIs): the text itself.
/// - BLOB (binary): Base64.
/// - A compound key: its parts' texts joined by U+001F.
/// - A key with a NULL part has no key text (`nil`, SQL NULL): like a uniqueness index, it matches no row.
///
/// ```swift
/// StoredValueCodec.keyText(of: [.real(-0.0)])                       // "0.0"
/// // SELECT ferry_key_text(sku, size) FROM Product                  -- "SKU-1\u{1F}42"
/// ```
extension StoredValueCodec {
    /// The name of the SQL function that computes ``keyText(of:)`` over its arguments.
    package static let keyTextFunction = "ferry_key_text"
    /// What joins the parts of a compound key's text.
    package static let keyPartSeparator: Character = "\u{1F}"

    /// The key text of a stored key (its parts in the constraint's order), or `nil` when a part is NULL.
    package static func keyText(of parts: some Collection<SQLiteValue>) -> String? {
        var text = ""
        for (offset, part) in parts.enumerated() {
            if offset > 0 { text.append(keyPartSeparator) }
            guard appendKeyText(of: part, to: &text) else { return nil }
        }
        return text
    }

    /// The key text of attribute values (each encoded as an attribute of its type), or `nil` when one is nil.
    package static func keyText(of values: [AttributeValue?], as types: [AttributeType]) -> String? {
        precondition(values.count == types.count, "a key text needs one type per value")
        return keyText(of: zip(values, types).map { encode($0, as: $1) })
    }

    /// Appends the key text of one stored key part to `text`; `false` (and nothing appended) for NULL.
    @discardableResult
    package static func appendKeyText(of part: SQLiteValue, to text: inout String) -> Bool {
        switch part {
        case .null: return false
        case .integer(let value): appendKeyText(integer: value, to: &text)
        case .real(let value): appendKeyText(real: value, to: &text)
        case .text(let value): text += value
        case .blob(let bytes): bytes.withUnsafeBytes { appendKeyText(blob: $0, to: &text) }
        }
        return true
    }

    /// Appends the key text of an INTEGER part.
    package static func appendKeyText(integer value: Int64, to text: inout String) {
        text += String(value)
    }

    /// Appends the key text of a REAL part.
    package static func appendKeyText(real value: Double, to text: inout String) {
        text += value == 0 ? "0.0" : value.description
    }

    /// Appends the key text of a TEXT part given as UTF-8 bytes.
    package static func appendKeyText(text bytes: UnsafeRawBufferPointer, to text: inout String) {
        text += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the key text of a BLOB part.
    package static func appendKeyText(blob bytes: UnsafeRawBufferPointer, to text: inout String) {
        text += Data(bytes).base64EncodedString()
    }

    /// Registers `ferry_key_text(part, …)` on `connection`: ``keyText(of:)`` of its arguments, NULL when one is
    /// NULL.
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses the registration.
    package static func registerKeyTextFunction(on connection: Connection) throws {
        try connection.createFunction(keyTextFunction, argumentCount: -1) { arguments in
            keyText(of: arguments).map(SQLiteValue.text) ?? .null
        }
    }
}
