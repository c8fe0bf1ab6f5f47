import FerrySQLite
import Foundation

/// The SQL functions a migration's type conversions call where SQL alone cannot say exactly what converts (see
/// ``TypeConversion``). Each returns the value in the new type's stored form, or NULL when the value does not
/// convert, so one call both converts and decides; NULL stays NULL.
///
/// Text arguments are read without ASCII whitespace at either end, as the other text conversions read them. All are
/// deterministic.
enum ConversionSQLFunctions {
    /// `ferry_date_from_text(text, formats)`: REAL seconds since 1970 of a date text in the first of `formats` (a
    /// JSON array of ``DateFormat`` names, ``formatsArgument(_:)``) that reads it, as an import with those date
    /// formats reads it (``DateFormat/dateSeconds(_:formats:)``: no zone means UTC; years 0000 to 9999).
    static let dateFromText = "ferry_date_from_text"
    /// `ferry_text_from_date(seconds)`: the ISO-8601 text the exporter writes for a date (`2026-01-05T09:00:00Z`,
    /// `.fff…` only when there is a fraction of a second).
    static let textFromDate = "ferry_text_from_date"
    /// `ferry_integer_from_text(text, low, high)`: the INTEGER a decimal text names when its fraction is zero
    /// (`12.0`, `-0.0`, `1e3`) and it lies within `low...high` (a whole number another writer left in the column
    /// converts too).
    static let integerFromText = "ferry_integer_from_text"
    /// `ferry_decimal_from_text(text)`: the exact decimal text a decimal attribute stores (`24.90` is `24.9`, `1e3`
    /// is `1000`, `1e-1` is `0.1`) for a text an import takes as a decimal (``DecimalText``), in the same bytes.
    static let decimalFromText = "ferry_decimal_from_text"
    /// `ferry_real_from_text(text, isFloat)`: the REAL a text an import takes as a double names (``DoubleText``:
    /// `.5`, `+1.5`, `-2.5E+3`, correctly rounded), within a float's range when `isFloat` is 1, as an import stores
    /// it; a number another writer left in the column converts too.
    static let realFromText = "ferry_real_from_text"
    /// `ferry_text_from_utf8(blob)`: the TEXT of bytes that are valid UTF-8.
    static let textFromUTF8 = "ferry_text_from_utf8"
    /// `ferry_uri_from_text(text)`: the stored form of the URI a text spells (its absolute string).
    static let uriFromText = "ferry_uri_from_text"

    /// Registers the functions on `connection` (replacing earlier registrations).
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses a registration.
    static func register(on connection: Connection) throws {
        // The formats of the last call, decoded once: a migration passes the same ones for every row.
        var formatsText = ""
        var formats: [DateFormat] = []
        try connection.createFunction(dateFromText, argumentCount: 2) { arguments in
            guard case .text(var text) = arguments[0], case .text(let names) = arguments[1] else { return .null }
            if names != formatsText {
                guard let decoded = try? JSONDecoder().decode([DateFormat].self, from: Data(names.utf8)) else {
                    return .null
                }
                formats = decoded
                formatsText = names
            }
            let seconds = text.withUTF8 { bytes in
                DateFormat.dateSeconds(UnsafeRawBufferPointer(bytes).trimmingASCIIWhitespace(), formats: formats)
            }
            return seconds.map(SQLiteValue.real) ?? .null
        }
        try connection.createFunction(realFromText, argumentCount: 2) { arguments in
            let isFloat = arguments[1].integer == 1
            let number: Double?
            switch arguments[0] {
            case .text(var text):
                number = text.withUTF8 { bytes in
                    let trimmed = UnsafeRawBufferPointer(bytes).trimmingASCIIWhitespace()
                    guard case .success(let value) = DoubleText.parse(trimmed) else {
                        return nil
                    }
                    return value
                }
            case .integer(let value): number = Double(value)
            case .real(let value): number = value
            default: number = nil
            }
            guard let number, !isFloat || DoubleText.fitsFloat(number) else { return .null }
            return .real(number)
        }
        try connection.createFunction(textFromDate, argumentCount: 1) { arguments in
            guard let seconds = arguments[0].real else { return .null }
            return .text(ISO8601Text.string(seconds: seconds))
        }
        try connection.createFunction(integerFromText, argumentCount: 3) { arguments in
            guard let low = arguments[1].integer, let high = arguments[2].integer else { return .null }
            let number: Int64?
            switch arguments[0] {
            case .text(var text):
                number = text.withUTF8 { integer(spelledBy: UnsafeRawBufferPointer($0).trimmingASCIIWhitespace()) }
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
                let canonical = text.withUTF8({
                    canonicalDecimal(UnsafeRawBufferPointer($0).trimmingASCIIWhitespace())
                })
            else { return .null }
            return .text(canonical)
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

    /// The integer a decimal text names, when the text is a number ``DecimalText`` reads (a decimal import's rules:
    /// `12.0`, `1e3`, `10e-1`) whose fraction is zero and which fits an `Int64`; `nil` otherwise (`12.5`, `1e-1`).
    static func integer(spelledBy bytes: UnsafeRawBufferPointer) -> Int64? {
        guard case .success(let number) = DecimalText.parse(bytes) else { return nil }
        return number.integer(from: bytes)
    }

    /// The text a decimal attribute stores for the number `bytes` spell, as an import writes it (``DecimalText``), or
    /// `nil` when they are not such a number.
    static func canonicalDecimal(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard case .success(let number) = DecimalText.parse(bytes) else { return nil }
        return String(unsafeUninitializedCapacity: number.textCount) { buffer in
            number.write(from: bytes, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// The second argument of ``dateFromText``: `formats` as a JSON array of their names.
    static func formatsArgument(_ formats: [DateFormat]) -> String {
        let names = formats.map { format in
            String(decoding: (try? JSONEncoder().encode(format.description)) ?? Data("\"\"".utf8), as: UTF8.self)
        }
        return "[" + names.joined(separator: ",") + "]"
    }
}
