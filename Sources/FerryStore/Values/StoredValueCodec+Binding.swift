package import FerrySQLite
import Foundation

/// Binds attribute values in ``StoredValueCodec``'s encoding, straight to SQLite, with no intermediate
/// ``SQLiteValue`` for the common kinds: what context saves, batch inserts and updates bind through.
///
/// ```swift
/// try statement.bind(.decimal(Decimal(string: "9.95")!), as: .decimal, at: 3)  // binds the text "9.95"
/// ```
extension Statement {
    /// Binds `value` (or NULL) for an attribute of `type` at parameter `index`, as
    /// ``StoredValueCodec/encode(_:as:)`` stores it.
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses the binding.
    package func bind(_ value: AttributeValue?, as type: AttributeType, at index: Int) throws {
        guard let value else { return try bindNull(at: index) }
        switch (type, value) {
        case (.double, .integer), (.float, .integer), (.date, .integer), (.decimal, .integer), (.string, .integer),
            (_, .decimal), (_, .uuid), (_, .uri):
            try bind(StoredValueCodec.encode(value, as: type), at: index)
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
        }
    }
}
