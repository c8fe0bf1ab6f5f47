/// ISO 8601 text of Unix times, written without Foundation's formatters (which allocate per call): how the exporter
/// writes a date, what a migration's date → string conversion stores, and (years before 1 as PostgreSQL numbers them)
/// what a publish sends PostgreSQL.
package enum ISO8601Text {
    /// How years before 1 are written.
    package enum Years: Sendable {
        /// ISO 8601's numbering, in which year 0 is 1 BC: `0000-01-01T00:00:00Z`, `-0001-…`.
        case astronomical
        /// PostgreSQL's, which has no year 0: the year before Christ followed by ` BC`,
        /// `0001-01-01T00:00:00Z BC` for ISO 8601's `0000-01-01T00:00:00Z`.
        case beforeChrist
    }

    /// Writes `seconds` since 1970 as `2026-01-05T09:00:00Z` (with `.fff…` only when the time has a fraction of a
    /// second, to the microsecond, trailing zeros dropped) at the start of `buffer` (at least 40 bytes); returns how
    /// many bytes. Years before 1 are written as `years` says, years after 9999 with their extra digits.
    @inlinable
    package static func write(
        seconds: Double, into buffer: UnsafeMutableRawBufferPointer, years: Years = .astronomical
    ) -> Int {
        guard seconds.isFinite, abs(seconds) < 1e14 else { return copy("invalid-date", into: buffer) }
        let micros = Int64((seconds * 1_000_000).rounded())
        let wholeSeconds = floorDivide(micros, 1_000_000)
        let fraction = micros - wholeSeconds * 1_000_000
        let days = floorDivide(wholeSeconds, 86_400)
        let secondOfDay = wholeSeconds - days * 86_400
        let (astronomicalYear, month, day) = civilDate(daysSince1970: days)
        let beforeChrist = years == .beforeChrist && astronomicalYear < 1
        let year = beforeChrist ? 1 - astronomicalYear : astronomicalYear
        var position = 0
        func put(_ byte: UInt8) {
            buffer[position] = byte
            position += 1
        }
        func put(_ value: Int64, width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                put(UInt8(truncatingIfNeeded: rest / divisor % 10) + 0x30)
                rest %= divisor
                divisor /= 10
            }
        }
        if year < 0 { put(0x2D) }
        let yearDigits = max(4, String(year.magnitude).count)
        put(Int64(year.magnitude), width: yearDigits)
        put(0x2D)
        put(month, width: 2)
        put(0x2D)
        put(day, width: 2)
        put(0x54)
        put(secondOfDay / 3600, width: 2)
        put(0x3A)
        put(secondOfDay / 60 % 60, width: 2)
        put(0x3A)
        put(secondOfDay % 60, width: 2)
        if fraction > 0 {
            put(0x2E)
            var digits = fraction
            var width = 6
            while digits % 10 == 0 {
                digits /= 10
                width -= 1
            }
            put(digits, width: width)
        }
        put(0x5A)
        if beforeChrist {
            for byte in " BC".utf8 { put(byte) }
        }
        return position
    }

    /// The text of `seconds`, for manifests and messages (and years before 1 as `years` says).
    package static func string(seconds: Double, years: Years = .astronomical) -> String {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { buffer in
            let count = write(seconds: seconds, into: buffer, years: years)
            return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[0..<count]), as: UTF8.self)
        }
    }

    @usableFromInline
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    /// The proleptic Gregorian date of a day number (Howard Hinnant's `civil_from_days`).
    @usableFromInline
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    @usableFromInline
    static func copy(_ text: StaticString, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let bytes = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        buffer.copyMemory(from: bytes)
        return bytes.count
    }
}
