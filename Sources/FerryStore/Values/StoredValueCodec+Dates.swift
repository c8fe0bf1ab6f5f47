/// Date values as the store keeps them: REAL seconds since 1970-01-01T00:00:00Z, rounded as `Date` holds them.
extension StoredValueCodec {
    /// The instants a date text may name: years 0000 to 9999, as four digits allow (the end not included).
    package static var dateSecondsRange: Range<Double> { CivilTime.secondsRange }

    /// The stored form of the date an ISO-8601 text names (see ``ISO8601Parser`` for the forms; no zone means
    /// UTC), or `nil` when the text is not one of those forms or names an impossible date.
    ///
    /// ```swift
    /// "2026-01-05T09:00:00+01:00".utf8.withContiguousStorageIfAvailable {
    ///     StoredValueCodec.dateSeconds(iso8601: UnsafeRawBufferPointer($0))  // 1767600000
    /// }
    /// ```
    @inlinable
    package static func dateSeconds(iso8601 text: UnsafeRawBufferPointer) -> Double? {
        guard let seconds = ISO8601Parser.parse(text)?.secondsSince1970, CivilTime.secondsRange.contains(seconds)
        else { return nil }
        return asHeldByDate(seconds)
    }

    /// `seconds` rounded as a `Date` holds them (a double counted from 2001), so that a value written from seconds
    /// stores the same REAL as one that went through `Date`. Only sub-microsecond digits can change.
    @inlinable
    package static func asHeldByDate(_ seconds: Double) -> Double {
        (seconds - secondsFrom1970To2001) + secondsFrom1970To2001
    }

    /// Seconds from 1970-01-01 to 2001-01-01, `Date`'s reference date.
    package static let secondsFrom1970To2001: Double = 978_307_200
}
