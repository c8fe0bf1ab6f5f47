import FerryStore

/// Dates from borrowed bytes, in the formats the options list.
extension FieldConverter {
    /// Seconds since 1970 for the first of `formats` that reads `text` completely and gives a valid date, or `nil`
    /// (``DateFormat/dateSeconds(_:formats:)``, which a migration's text → date conversion shares).
    static func parseDate(_ text: UnsafeRawBufferPointer, formats: [DateFormat]) -> Double? {
        DateFormat.dateSeconds(text, formats: formats)
    }
}
