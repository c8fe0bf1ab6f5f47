import FerrySQLite

/// Conversions to strings, dates, UUIDs, URIs and binary data (see ``TypeConversion`` for the table).
extension TypeConversion {
    /// The conversion from `old` to the text, date or binary type `new`, or `nil`; a text becomes a date in the first
    /// of `dateFormats` that reads it.
    static func toText(from old: AttributeType, to new: AttributeType, dateFormats: [DateFormat]) -> TypeConversion? {
        let dates = StoredValueCodec.dateSecondsRange
        // Rounded as a `Date` holds seconds, so the REAL is the one an insert of the same date stores.
        let asHeldByDate = { (seconds: String) in
            "((\(seconds) - \(StoredValueCodec.secondsFrom1970To2001)) + \(StoredValueCodec.secondsFrom1970To2001))"
        }
        switch (old, new) {
        case (.boolean, .string):
            return TypeConversion(
                converts: { "\($0) IN (0, 1)" }, value: { "CASE WHEN \($0) = 0 THEN 'false' ELSE 'true' END" },
                expectation: "0 or 1")
        case (.date, .string):
            return .function({ "\(ConversionSQLFunctions.textFromDate)(\($0))" }, expecting: "a date")
        case (.binary, .string):
            return .function({ "\(ConversionSQLFunctions.textFromUTF8)(\($0))" }, expecting: "valid UTF-8 bytes")
        case (.string, .date):
            let formats = MigrationPlanner.literal(.text(ConversionSQLFunctions.formatsArgument(dateFormats)))
            return .function(
                { "\(ConversionSQLFunctions.dateFromText)(\($0), \(formats))" },
                expecting: "a date in " + expectation(of: dateFormats))
        case (.integer16, .date), (.integer32, .date), (.integer64, .date), (.double, .date), (.float, .date):
            // Seconds since 1970-01-01T00:00:00Z, within the years a date text can name.
            return TypeConversion(
                converts: { "\($0) >= \(dates.lowerBound) AND \($0) < \(dates.upperBound)" },
                value: { asHeldByDate("CAST(\($0) AS REAL)") },
                expectation: "seconds since 1970 within the years 0000 to 9999")
        case (.string, .uuid):
            let hex = "[0-9a-f]"
            let pattern = [8, 4, 4, 4, 12].map { String(repeating: hex, count: $0) }.joined(separator: "-")
            return TypeConversion(
                converts: { "length(trim(\($0))) = 36 AND lower(trim(\($0))) GLOB '\(pattern)'" },
                value: { "lower(trim(\($0)))" }, expectation: "a UUID (8-4-4-4-12 hexadecimal digits)")
        case (.string, .uri):
            return .function({ "\(ConversionSQLFunctions.uriFromText)(\($0))" }, expecting: "a URI")
        case (.string, .binary):
            // SQLite's text is UTF-8 (Ferry's stores are), so the cast gives the text's UTF-8 bytes.
            return .always { "CAST(\($0) AS BLOB)" }
        default:
            return nil
        }
    }

    /// What a text must be to convert to a date in `formats`: `ISO-8601 (2026-01-05T09:00:00Z) or dd/MM/yyyy`, as
    /// an import's message names them.
    static func expectation(of formats: [DateFormat]) -> String {
        let names = formats.map(\.expectationName)
        guard let last = names.last else { return "no date format" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }
}
