import FerrySQLite

/// How the stored values of one attribute type become stored values of another, for a type change that is not a
/// widening: the SQL test that a non-null value converts, the SQL of the converted value (in exactly the form
/// `StoredValueCodec` stores for the new type), and what a value that does not convert was expected to be.
///
/// A value that does not convert is a violation the migration's policy decides (fail, reject, default); none is
/// dropped silently. `TypeConversion+Numbers.swift` has the conversions to integers, reals, decimals and booleans;
/// `TypeConversion+Text.swift` those to strings, dates, UUIDs, URIs and binary data.
///
/// | from → to | converts | violation |
/// |---|---|---|
/// | integer → narrower integer, boolean | values in range; 0 or 1 | out of range |
/// | double, float, date → integer | whole numbers (a date's seconds since 1970) in range | a fraction, out of range |
/// | string, decimal → integer | numbers with a zero fraction (`12.0`, `-0.0`, `1e3`, `10e-1`) in range | `12.5`, `1e-1`, not a number |
/// | string, decimal → double, float | numbers as an import reads them (`.5`, `+1.5`, `-2.5E+3`) | not a number, beyond the type's range |
/// | double → float; integer64 → float | every value | none |
/// | string → decimal | numbers as an import reads them (`1e-1`, `+1.5`), stored in the same exact text | not a number, over 38 significant digits |
/// | double, float → decimal | whole numbers | a fraction |
/// | string → boolean | `true` `false` `yes` `no` `1` `0`, any case | anything else |
/// | boolean → string | `true`, `false` (as the exporter writes them) | a stored value other than 0 or 1 |
/// | string → date | text in the first of the migration's date formats that reads it (``DateFormat``: `iso8601` by default, `epochSeconds`, `epochMilliseconds`, patterns such as `dd/MM/yyyy`), as an import reads it; no zone is UTC | other text |
/// | integer, double, float → date | seconds since 1970-01-01T00:00:00Z, years 0000 to 9999 | out of those years |
/// | date → string | ISO-8601 text as the exporter writes it (`2026-01-05T09:00:00Z`) | none |
/// | string ↔ UUID | 8-4-4-4-12 hexadecimal text, stored lower-case | other text |
/// | string → URI | text a URL can be made of | other text |
/// | string → binary | its UTF-8 bytes | none |
/// | binary → string | bytes that are valid UTF-8 | other bytes |
///
/// Widenings (integer16 → 32 → 64, integer → double or decimal, float or date → double, anything else → string)
/// need no conversion. Any pair not listed (a date to a UUID, a transformable value to anything) is not inferable:
/// a custom stage converts it.
struct TypeConversion {
    /// The SQL test that the non-null value `$0` converts.
    var converts: (String) -> String
    /// The SQL of the converted value of `$0` (used only where `converts` holds).
    var value: (String) -> String
    /// What a value must be to convert, for messages and reject reasons ("ISO-8601 date text").
    var expectation: String
    /// Whether `value` is NULL exactly when the value does not convert (a conversion function that decides and
    /// converts in one call), so the copy evaluates it once.
    var isNullWhenFailing = false

    /// A conversion that every value survives.
    static func always(_ value: @escaping (String) -> String) -> TypeConversion {
        TypeConversion(converts: { _ in "1" }, value: value, expectation: "any value")
    }

    /// A conversion by one SQL function call that returns NULL for a value that does not convert.
    static func function(_ call: @escaping (String) -> String, expecting expectation: String) -> TypeConversion {
        TypeConversion(
            converts: { "\(call($0)) IS NOT NULL" }, value: call, expectation: expectation, isNullWhenFailing: true)
    }

    /// The conversion from `old` to `new`, or `nil` when Ferry has none (the change is then not inferable); a text
    /// becomes a date in the first of `dateFormats` that reads it.
    static func between(
        _ old: AttributeType, _ new: AttributeType, dateFormats: [DateFormat] = [.iso8601]
    ) -> TypeConversion? {
        switch new {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean:
            toNumber(from: old, to: new)
        case .string, .date, .uuid, .uri, .binary:
            toText(from: old, to: new, dateFormats: dateFormats)
        case .transformable:
            nil
        }
    }

    /// The SQL expression `CASE WHEN … END` that copies `source` (an old column) converted, giving `replacement`
    /// (an SQL literal) to values that do not convert.
    func copyExpression(of source: String, replacement: String) -> String {
        if isNullWhenFailing {
            let converted = value(source)
            return replacement == "NULL"
                ? converted : "CASE WHEN \(source) IS NULL THEN NULL ELSE coalesce(\(converted), \(replacement)) END"
        }
        return "CASE WHEN \(source) IS NULL THEN NULL WHEN \(converts(source)) THEN \(value(source)) ELSE "
            + "\(replacement) END"
    }
}
