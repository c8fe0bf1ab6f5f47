import FerryStore

/// Dates from borrowed bytes, in the formats the options list.
extension FieldConverter {
    /// Seconds since 1970 for the first of `formats` that reads `text` completely and gives a valid date, or `nil`.
    ///
    /// Epoch values must fall within years 0000 to 9999 like the other formats, which also catches milliseconds
    /// given where seconds were expected.
    static func parseDate(_ text: UnsafeRawBufferPointer, formats: [DateFormat]) -> Double? {
        for format in formats {
            let seconds: Double?
            switch format {
            case .iso8601:
                seconds = ISO8601Parser.parse(text)?.secondsSince1970
            case .pattern(let pattern):
                seconds = pattern.parse(text)?.secondsSince1970
            case .epochSeconds:
                seconds = epochValue(text)
            case .epochMilliseconds:
                seconds = epochValue(text).map { $0 / 1_000 }
            }
            if let seconds, StoredValueCodec.dateSecondsRange.contains(seconds) {
                return StoredValueCodec.asHeldByDate(seconds)
            }
        }
        return nil
    }

    private static func epochValue(_ text: UnsafeRawBufferPointer) -> Double? {
        guard case .success(let value) = parseDouble(text) else { return nil }
        return value
    }
}
