/// A date and time of the proleptic Gregorian calendar as read from a field, with its UTC offset; turned into
/// seconds since 1970 with integer arithmetic (no `Calendar`, no `DateFormatter`).
package struct CivilTime {
    /// The civil time 1970-01-01T00:00:00Z; set the fields read.
    @inlinable
    package init() {}

    /// The year, 0...9999.
    package var year = 1970
    /// The month, 1...12.
    package var month = 1
    /// The day of the month, from 1.
    package var day = 1
    /// The hour, 0...23.
    package var hour = 0
    /// The minute, 0...59.
    package var minute = 0
    /// 0...60: 60 is a leap second, counted as the first second of the next minute.
    package var second = 0
    /// The fraction of the second, in nanoseconds.
    package var nanosecond = 0
    /// The offset from UTC east of Greenwich, in seconds (`+01:00` is 3600). Our rule: no zone means UTC.
    package var offsetSeconds = 0

    /// The instants a date field may name: the years 0000 to 9999, as four digits allow, from
    /// 0000-01-01T00:00:00Z up to 10000-01-01T00:00:00Z, which is not included (so `9999-12-31T23:59:59.999Z` is in).
    package static let secondsRange: Range<Double> = -62_167_219_200..<253_402_300_800

    /// Seconds since 1970-01-01T00:00:00Z, or `nil` when a component is out of range (month 13, February 30th
    /// outside a leap year, hour 24, minute 60, second 61, offset past ±23:59).
    ///
    /// Near year 9999 a double holds seconds to about 30 microseconds, so an instant in the last microseconds of
    /// 9999 (`9999-12-31T23:59:59.999999Z`, a common "open end") would round up to 10000-01-01; it gets the
    /// largest double before that instead, which stays in 9999.
    @inlinable
    package var secondsSince1970: Double? {
        guard (0...9999).contains(year), (1...12).contains(month),
            (1...Self.daysInMonth(month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (0..<1_000_000_000).contains(nanosecond), abs(offsetSeconds) < 24 * 3600
        else { return nil }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds
        let value = Double(seconds) + Double(nanosecond) / 1_000_000_000
        let end = Self.secondsRange.upperBound
        return Double(seconds) < end && value >= end ? end.nextDown : value
    }

    /// Whether `year` has a February 29th.
    @inlinable
    package static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` (1...12) of `year`.
    @inlinable
    package static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given civil date (negative before), after Howard Hinnant's `days_from_civil`.
    @inlinable
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400  // 0...399
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1  // 0...365, from March 1st
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear  // 0...146096
        return era * 146_097 + dayOfEra - 719_468
    }
}
