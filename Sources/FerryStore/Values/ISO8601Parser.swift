/// Reads the ISO-8601 (RFC 3339) forms that data files use, from borrowed bytes.
///
/// Accepted: `YYYY-MM-DD`, then optionally `T` (or `t`, or a space) and `HH:MM`, `HH:MM:SS` or
/// `HH:MM:SS.fraction` (`,` also separates the fraction; any number of digits, nanoseconds kept), then optionally
/// a zone: `Z` (or `z`), `±HH:MM`, `±HHMM` or `±HH`. Our rule: no zone means UTC. Nothing may follow.
///
/// The one reader of date text: the importer's `iso8601` date format and a migration's string → date conversion
/// both read through it, so they agree on what a date text is.
package enum ISO8601Parser {
    /// The date and time `bytes` hold, or `nil` when they are not in an accepted form. Ranges are checked by
    /// ``CivilTime/secondsSince1970``.
    @inlinable
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> CivilTime? {
        var cursor = ByteCursor(bytes)
        var time = CivilTime()
        guard let year = cursor.digits(exactly: 4), cursor.skip(UInt8(ascii: "-")),
            let month = cursor.digits(exactly: 2), cursor.skip(UInt8(ascii: "-")),
            let day = cursor.digits(exactly: 2)
        else { return nil }
        time.year = year
        time.month = month
        time.day = day
        if cursor.isAtEnd { return time }

        guard let separator = cursor.peek,
            separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ")
        else { return nil }
        cursor.index += 1
        guard let hour = cursor.digits(exactly: 2), cursor.skip(UInt8(ascii: ":")),
            let minute = cursor.digits(exactly: 2)
        else { return nil }
        time.hour = hour
        time.minute = minute
        if cursor.skip(UInt8(ascii: ":")) {
            guard let second = cursor.digits(exactly: 2) else { return nil }
            time.second = second
            if cursor.skip(either: UInt8(ascii: "."), or: UInt8(ascii: ",")) != nil {
                guard let nanosecond = readFraction(&cursor) else { return nil }
                time.nanosecond = nanosecond
            }
        }
        if cursor.isAtEnd { return time }
        guard let offset = readZone(&cursor), cursor.isAtEnd else { return nil }
        time.offsetSeconds = offset
        return time
    }

    /// Reads one or more fraction digits as nanoseconds; digits past the ninth are read and dropped.
    @inlinable
    package static func readFraction(_ cursor: inout ByteCursor) -> Int? {
        var nanosecond = 0
        var count = 0
        while let byte = cursor.peek, let digit = ByteCursor.digit(byte) {
            if count < 9 { nanosecond = nanosecond * 10 + digit }
            count += 1
            cursor.index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 9) { nanosecond *= 10 }
        return nanosecond
    }

    /// Reads `Z`, `±HH:MM`, `±HHMM` or `±HH` as seconds east of UTC (`nil` when none is there). Offsets must stay
    /// under 24 hours with minutes 0...59.
    @inlinable
    package static func readZone(_ cursor: inout ByteCursor, allowsColon: Bool = true, allowsBasic: Bool = true)
        -> Int?
    {
        if cursor.skip(either: UInt8(ascii: "Z"), or: UInt8(ascii: "z")) != nil { return 0 }
        guard let sign = cursor.skip(either: UInt8(ascii: "+"), or: UInt8(ascii: "-")),
            let hours = cursor.digits(exactly: 2), hours <= 23
        else { return nil }
        var minutes = 0
        if allowsColon, cursor.skip(UInt8(ascii: ":")) {
            guard let value = cursor.digits(exactly: 2) else { return nil }
            minutes = value
        } else if allowsBasic, let value = cursor.digits(exactly: 2) {
            minutes = value
        }
        guard minutes <= 59 else { return nil }
        let seconds = hours * 3_600 + minutes * 60
        return sign == UInt8(ascii: "-") ? -seconds : seconds
    }
}
