import FerrySQLite
import Foundation

/// The SQL functions a migration's type conversions call where SQL alone cannot say exactly what converts (see
/// ``TypeConversion``). Each returns the value in the new type's stored form, or NULL when the value does not
/// convert, so one call both converts and decides; NULL stays NULL.
///
/// Text arguments are read without ASCII whitespace at either end, as the other text conversions read them. All are
/// deterministic.
enum ConversionSQLFunctions {
    /// `ferry_date_from_text(text)`: REAL seconds since 1970 of an ISO-8601 date text, read by the same parser as the
    /// importer's `iso8601` date format (no zone means UTC; years 0000 to 9999).
    static let dateFromText = "ferry_date_from_text"
    /// `ferry_text_from_date(seconds)`: the ISO-8601 text the exporter writes for a date (`2026-01-05T09:00:00Z`,
    /// `.fff…` only when there is a fraction of a second).
    static let textFromDate = "ferry_text_from_date"
    /// `ferry_integer_from_text(text, low, high)`: the INTEGER a decimal text names when its fraction is zero
    /// (`12.0`, `-0.0`, `1e3`) and it lies within `low...high` (a whole number another writer left in the column
    /// converts too).
    static let integerFromText = "ferry_integer_from_text"
    /// `ferry_decimal_from_text(text)`: the exact decimal text a decimal attribute stores (`24.90` is `24.9`, `1e3`
    /// is `1000`) for a text that is a plain number.
    static let decimalFromText = "ferry_decimal_from_text"
    /// `ferry_text_from_utf8(blob)`: the TEXT of bytes that are valid UTF-8.
    static let textFromUTF8 = "ferry_text_from_utf8"
    /// `ferry_uri_from_text(text)`: the stored form of the URI a text spells (its absolute string).
    static let uriFromText = "ferry_uri_from_text"

    /// Registers the functions on `connection` (replacing earlier registrations).
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses a registration.
    static func register(on connection: Connection) throws {
        try connection.createFunction(dateFromText, argumentCount: 1) { arguments in
            guard case .text(var text) = arguments[0] else { return .null }
            let seconds = text.withUTF8 { bytes in
                StoredValueCodec.dateSeconds(iso8601: trimmed(UnsafeRawBufferPointer(bytes)))
            }
            return seconds.map(SQLiteValue.real) ?? .null
        }
        try connection.createFunction(textFromDate, argumentCount: 1) { arguments in
            guard let seconds = arguments[0].real else { return .null }
            return .text(ISO8601Text.string(seconds: seconds))
        }
        try connection.createFunction(integerFromText, argumentCount: 3) { arguments in
            guard let low = arguments[1].integer, let high = arguments[2].integer else { return .null }
            let number: Int64?
            switch arguments[0] {
            case .text(var text): number = text.withUTF8 { integer(spelledBy: trimmed(UnsafeRawBufferPointer($0))) }
            // Another writer may have left a number in a text or decimal column.
            case .integer(let value): number = value
            case .real(let value): number = Int64(exactly: value)
            default: number = nil
            }
            guard let number, (low...high).contains(number) else { return .null }
            return .integer(number)
        }
        try connection.createFunction(decimalFromText, argumentCount: 1) { arguments in
            if case .integer(let value) = arguments[0] { return .text(String(value)) }
            guard case .text(var text) = arguments[0],
                let decimal = StoredValueCodec.decimal(
                    from: text.withUTF8 { String(decoding: trimmed(UnsafeRawBufferPointer($0)), as: UTF8.self) })
            else { return .null }
            return StoredValueCodec.encode(.decimal(decimal), as: .decimal)
        }
        try connection.createFunction(textFromUTF8, argumentCount: 1) { arguments in
            guard case .blob(let bytes) = arguments[0], let text = String(validating: bytes, as: UTF8.self) else {
                return .null
            }
            return .text(text)
        }
        try connection.createFunction(uriFromText, argumentCount: 1) { arguments in
            guard case .text(let text) = arguments[0] else { return .null }
            let spelled = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !spelled.isEmpty, let url = URL(string: spelled) else { return .null }
            return StoredValueCodec.encode(.uri(url), as: .uri)
        }
    }

    /// The integer a decimal text names, when the text is a plain number (``StoredValueCodec/decimal(from:)``'s
    /// rules) whose fraction is zero and which fits an `Int64`; `nil` otherwise.
    static func integer(spelledBy bytes: UnsafeRawBufferPointer) -> Int64? {
        // Plain digits, the common case, need no `Decimal`.
        var cursor = ByteCursor(bytes)
        let negative = cursor.skip(UInt8(ascii: "-"))
        if !negative { _ = cursor.skip(UInt8(ascii: "+")) }
        let start = cursor.index
        var value: Int64 = 0
        var plain = true
        while let byte = cursor.peek, let digit = ByteCursor.digit(byte) {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, carry) = shifted.addingReportingOverflow(negative ? -Int64(digit) : Int64(digit))
            guard !overflow, !carry else {
                plain = false
                break
            }
            value = next
            cursor.index += 1
        }
        if plain && cursor.isAtEnd && cursor.index > start { return value }
        guard let decimal = StoredValueCodec.decimal(from: String(decoding: bytes, as: UTF8.self)) else { return nil }
        var exact = decimal
        var whole = Decimal()
        NSDecimalRound(&whole, &exact, 0, .plain)
        guard whole == decimal else { return nil }
        return Int64(StoredValueCodec.text(of: whole))
    }

    /// `bytes` without ASCII whitespace at either end.
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0
        var end = bytes.count
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }
}
