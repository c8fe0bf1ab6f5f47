package import FerrySQLite
package import Foundation

/// How every attribute value is stored, the one owner of the store's encoding: encoding a value to its SQLite
/// storage form, decoding it back, and the key text of a value (see `StoredValueCodec+KeyText.swift`).
///
/// | attribute type | stored as |
/// |---|---|
/// | integer 16/32/64 | INTEGER |
/// | boolean | INTEGER 0 or 1 |
/// | double, float | REAL |
/// | date | REAL seconds since 1970 |
/// | decimal | TEXT, exact: `NSDecimalString` in the POSIX locale (`24.90` is `24.9`, `1e3` is `1000`) |
/// | string, URI | TEXT |
/// | UUID | TEXT, lower-case |
/// | binary, transformable | BLOB (or, for an externally stored binary value, the TEXT of its blob reference) |
///
/// Every writer (context saves, batch inserts and updates, packed rows) encodes through here and every reader
/// (fetches, history, conflict checks, context-mode imports) decodes through here, so a value reads back as it was
/// written, whoever wrote it. An importer's hot path appends parsed fields through the typed appenders beside this
/// file (`PackedRows+StoredValues.swift`, and `DecimalText` for decimals read from bytes), which write the same
/// forms without allocating; a test holds the two to the same bytes.
///
/// ```swift
/// StoredValueCodec.encode(.uuid(id), as: .uuid)        // .text("123e4567-e89b-12d3-a456-426614174000")
/// StoredValueCodec.decode(.real(0), as: .date)         // .date(1970-01-01 00:00:00 +0000)
/// ```
package enum StoredValueCodec {
    /// The storage class the values of an attribute type have (NULL aside).
    package enum StorageClass: Sendable, Hashable, CustomStringConvertible {
        case integer, real, text, blob

        /// The storage class of values of `type`.
        package init(_ type: AttributeType) {
            switch type {
            case .integer16, .integer32, .integer64, .boolean: self = .integer
            case .double, .float, .date: self = .real
            case .decimal, .string, .uuid, .uri: self = .text
            case .binary, .transformable: self = .blob
            }
        }

        /// `INTEGER`, `REAL`, `TEXT`, `BLOB`: SQLite's names, for messages.
        package var description: String {
            switch self {
            case .integer: "INTEGER"
            case .real: "REAL"
            case .text: "TEXT"
            case .blob: "BLOB"
            }
        }
    }

    /// `value` (or NULL) for an attribute of `type`, as SQLite stores it.
    ///
    /// A value of a kind the type does not store (a string for an integer attribute) is a programming error the
    /// caller has already ruled out by validation; it is stored in the value's natural storage class so nothing is
    /// lost. An integer is accepted for a double, float or decimal attribute and stored exactly.
    package static func encode(_ value: AttributeValue?, as type: AttributeType) -> SQLiteValue {
        guard let value else { return .null }
        switch (type, value) {
        case (.double, .integer(let integer)), (.float, .integer(let integer)), (.date, .integer(let integer)):
            return .real(Double(integer))
        case (.decimal, .integer(let integer)), (.string, .integer(let integer)):
            return .text(String(integer))
        case (_, .integer(let integer)): return .integer(integer)
        case (_, .boolean(let flag)): return .integer(flag ? 1 : 0)
        case (_, .double(let double)): return .real(double)
        case (_, .date(let date)): return .real(date.timeIntervalSince1970)
        case (_, .decimal(let decimal)): return .text(text(of: decimal))
        case (_, .string(let text)): return .text(text)
        case (_, .uuid(let uuid)): return .text(text(of: uuid))
        case (_, .uri(let url)): return .text(url.absoluteString)
        case (_, .binary(let data)), (_, .transformable(let data)): return .blob(Array(data))
        }
    }

    /// `value` as an attribute of `type`, or `nil` when it is NULL or not a valid encoding of one.
    ///
    /// Besides what ``encode(_:as:)`` writes, it reads what another writer of the file may have left: an integral
    /// REAL in an integer column, an INTEGER or REAL in a decimal column, an INTEGER in a real or date column.
    package static func decode(_ value: SQLiteValue, as type: AttributeType) -> AttributeValue? {
        switch (type, value) {
        case (.integer16, .integer(let integer)), (.integer32, .integer(let integer)),
            (.integer64, .integer(let integer)):
            return .integer(integer)
        case (.integer16, .real(let real)), (.integer32, .real(let real)), (.integer64, .real(let real)):
            return Int64(exactly: real).map(AttributeValue.integer)
        case (.double, _), (.float, _):
            return value.real.map(AttributeValue.double)
        case (.decimal, .text(let text)):
            return decimal(from: text).map(AttributeValue.decimal)
        case (.decimal, .integer(let integer)):
            return .decimal(Decimal(integer))
        case (.decimal, .real(let real)):
            // Only a store written by something else holds a REAL here; its shortest text is the best reading.
            return decimal(from: "\(real)").map(AttributeValue.decimal)
        case (.string, .text(let text)):
            return .string(text)
        case (.boolean, .integer(let integer)):
            return integer == 0 || integer == 1 ? .boolean(integer == 1) : nil
        case (.date, _):
            return value.real.map { .date(Date(timeIntervalSince1970: $0)) }
        case (.binary, .blob(let bytes)):
            return .binary(Data(bytes))
        case (.uuid, .text(let text)):
            return UUID(uuidString: text).map(AttributeValue.uuid)
        case (.uri, .text(let text)):
            return URL(string: text).map(AttributeValue.uri)
        case (.transformable, .blob(let bytes)):
            return .transformable(Data(bytes))
        default:
            return nil
        }
    }

    /// The exact text a decimal is stored as, always with `.` as the separator.
    package static func text(of decimal: Decimal) -> String {
        var copy = decimal
        return NSDecimalString(&copy, Locale(identifier: "en_US_POSIX"))
    }

    /// The text a UUID is stored as: lower-case 8-4-4-4-12.
    package static func text(of uuid: UUID) -> String {
        uuid.uuidString.lowercased()
    }

    /// The exact decimal `text` spells, or `nil` unless the whole text is a number ``DecimalText`` reads
    /// (`[+-]digits[.digits][e[+-]digits]`: `1e-1`, `+1.5`; `Decimal(string:)` alone would read `12abc` as 12 and
    /// `1.2.3` as 1.2). A number with more significant digits than ``DecimalText`` takes is read as
    /// `Decimal(string:)` reads it (another writer may have left one in the store).
    package static func decimal(from text: String) -> Decimal? {
        var copy = text
        let syntax = copy.withUTF8 { bytes -> Bool in
            if case .failure(.syntax) = DecimalText.parse(UnsafeRawBufferPointer(bytes)) { return false }
            return true
        }
        guard syntax else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }
}
