package import FerrySQLite
import Foundation

/// Binds attribute values in the storage encoding of ``StoreSchema`` — the inverse of what fetches decode:
/// integers and booleans INTEGER, doubles and floats REAL, dates REAL seconds since 1970, decimals exact TEXT,
/// UUIDs lower-case TEXT, URIs TEXT, binary and transformable values BLOB.
///
/// Every writer of rows (context saves, batch inserts and updates) binds through here, so a value is stored the
/// same way whoever writes it. Binding goes straight to SQLite, with no intermediate ``SQLiteValue``.
///
/// ```swift
/// try statement.bind(.decimal(Decimal(string: "9.95")!), as: .decimal, at: 3)  // binds the text "9.95"
/// ```
extension Statement {
    /// Binds `value` (or NULL) for an attribute of `type` at parameter `index`.
    ///
    /// A value of a kind the type does not store (a string for an integer attribute) is a programming error the
    /// caller has already ruled out by validation; it is bound as the value's natural storage class so nothing is
    /// lost.
    /// - Throws: ``SQLiteError`` when SQLite refuses the binding.
    package func bind(_ value: AttributeValue?, as type: AttributeType, at index: Int) throws {
        guard let value else { return try bindNull(at: index) }
        switch (type, value) {
        case (.double, .integer(let integer)), (.float, .integer(let integer)):
            try bind(Double(integer), at: index)
        case (.decimal, .decimal(let decimal)):
            try bind(StoredValueEncoder.text(of: decimal), at: index)
        case (.decimal, .integer(let integer)):
            try bind(String(integer), at: index)
        // The common kinds bound straight, as `storageValue` stores them, without an SQLiteValue or a copy.
        case (_, .string(let text)):
            try bindText(text, at: index)
        case (_, .integer(let integer)):
            try bind(integer, at: index)
        case (_, .double(let double)):
            try bind(double, at: index)
        case (_, .boolean(let flag)):
            try bind(Int64(flag ? 1 : 0), at: index)
        case (_, .date(let date)):
            try bind(date.timeIntervalSince1970, at: index)
        case (_, .binary(let data)), (_, .transformable(let data)):
            try data.withUnsafeBytes { try bindBlob($0, at: index) }
        default:
            try bind(value.storageValue, at: index)
        }
    }
}

/// Text forms of stored values.
enum StoredValueEncoder {
    /// The exact text of `decimal`, always with `.` as the separator (what ``FetchValueDecoder`` reads back).
    static func text(of decimal: Decimal) -> String {
        var copy = decimal
        return NSDecimalString(&copy, Locale(identifier: "en_US_POSIX"))
    }

    /// `value` for an attribute of `type`, as SQLite stores it.
    static func storageValue(of value: AttributeValue?, as type: AttributeType) -> SQLiteValue {
        guard let value else { return .null }
        switch (type, value) {
        case (.double, .integer(let integer)), (.float, .integer(let integer)): return .real(Double(integer))
        case (.decimal, .decimal(let decimal)): return .text(text(of: decimal))
        case (.decimal, .integer(let integer)): return .text(String(integer))
        default: return value.storageValue
        }
    }
}
