import FerryIO
import FerryStore
import Foundation
import Testing

@testable import FerryPipeline

/// Dates: ISO-8601, epoch seconds and milliseconds, custom patterns, calendar arithmetic.
struct DateParsingTests {

    private func seconds(_ text: String, formats: [DateFormat] = [.iso8601]) throws -> Converted {
        try converter(.date, options: ConversionOptions(dateFormats: formats)).convert(text)
    }

    @Test func iso8601DatesAndTimesWithAndWithoutZones() throws {
        #expect(try seconds("1970-01-01") == .real(0))
        #expect(try seconds("2026-01-05") == .real(1_767_571_200))
        #expect(try seconds("2026-01-05T09:00") == .real(1_767_603_600))
        #expect(try seconds("2026-01-05T09:00:00") == .real(1_767_603_600), "Our rule: no zone means UTC")
        #expect(try seconds("2026-01-05T09:00:00Z") == .real(1_767_603_600))
        #expect(try seconds("2026-01-05t09:00:00z") == .real(1_767_603_600))
        #expect(try seconds("2026-01-05 09:00:00Z") == .real(1_767_603_600))
        #expect(try seconds("2026-01-05T10:00:00+01:00") == .real(1_767_603_600))
        #expect(try seconds("2026-01-05T10:00:00+0100") == .real(1_767_603_600))
        #expect(try seconds("2026-01-05T10:00+01") == .real(1_767_603_600))
        #expect(try seconds("2026-01-05T03:30:00-05:30") == .real(1_767_603_600))
        #expect(try seconds("2026-01-04T23:59:59-23:59") == .real(1_767_571_199 + 23 * 3_600 + 59 * 60))
        #expect(try seconds(" 2026-01-05T09:00:00Z\n") == .real(1_767_603_600), "dates are trimmed")
    }

    @Test func fractionalSecondsKeepTheirDigits() throws {
        #expect(try seconds("2026-01-05T09:00:00.5Z") == .real(1_767_603_600.5))
        #expect(try seconds("2026-01-05T09:00:00,25Z") == .real(1_767_603_600.25))
        // Rounded as a Date holds them (seconds since 2001), which both modes store.
        let nanoseconds = Date(timeIntervalSince1970: 0.123456789).timeIntervalSince1970
        #expect(try seconds("1970-01-01T00:00:00.123456789Z") == .real(nanoseconds))
        #expect(
            try seconds("1970-01-01T00:00:00.1234567891234Z") == .real(nanoseconds),
            "digits past nanoseconds are dropped")
        #expect(try seconds("1969-12-31T23:59:59.750Z") == .real(-0.25))
        #expect(try seconds("2026-01-05T09:00:00.Z") == .failure(.invalidValue))
    }

    @Test func leapDaysAndLeapSeconds() throws {
        #expect(try seconds("2024-02-29") == .real(1_709_164_800))
        #expect(try seconds("2000-02-29") == .real(951_782_400))
        #expect(try seconds("2023-02-29") == .failure(.invalidValue))
        #expect(try seconds("1900-02-29") == .failure(.invalidValue))
        #expect(try seconds("2016-12-31T23:59:60Z") == .real(1_483_228_800), "a leap second is the next minute's first")
    }

    @Test(arguments: [
        "2026-13-01", "2026-00-10", "2026-04-31", "2026-01-32", "2026-01-00", "2026-01-05T24:00", "2026-01-05T09:60",
        "2026-01-05T09:00:61", "2026-01-05T09:00+24:00", "2026-01-05T09:00+01:60", "26-01-05", "2026-1-5", "2026/01/05",
        "2026-01-05T9:00", "2026-01-05T09", "2026-01-05T09:00:00ZZ", "2026-01-05T09:00:00 Z", "2026-01-05X09:00",
        "2026-01-05T09:00:00+1", "2026-01-05T09:00:00+01:0", "20260105", "tomorrow", "2026-01-05T",
    ])
    func iso8601RefusesOutOfRangeAndMalformedDates(text: String) throws {
        #expect(try seconds(text) == .failure(.invalidValue))
    }

    @Test func civilDayArithmeticAgreesWithFoundationsGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        var components = DateComponents(year: 1600, month: 1, day: 1)
        var date = try #require(calendar.date(from: components))
        let end = try #require(calendar.date(from: DateComponents(year: 9999, month: 12, day: 31)))
        while date <= end {
            components = calendar.dateComponents([.year, .month, .day], from: date)
            let year = try #require(components.year), month = try #require(components.month)
            let day = try #require(components.day)
            let days = CivilTime.daysFromCivil(year: year, month: month, day: day)
            #expect(Double(days * 86_400) == date.timeIntervalSince1970, "\(year)-\(month)-\(day)")
            date = date.addingTimeInterval(86_400 * 29)
        }
        #expect(try seconds("0000-01-01") == .real(-62_167_219_200))
        #expect(try seconds("9999-12-31T23:59:59Z") == .real(253_402_300_799))
    }

    @Test func theLastSecondOf9999IsInFractionsIncluded() throws {
        #expect(try seconds("9999-12-31T23:59:59.5Z") == .real(253_402_300_799.5))
        #expect(try seconds("9999-12-31T23:59:59.999") == .real(253_402_300_799.999))
        // A double holds seconds to about 30 microseconds there: the "open end" of slowly changing dimensions would
        // round up to 10000-01-01 and takes the largest double before it, which writes back in 9999.
        let end = 253_402_300_800.0
        #expect(try seconds("9999-12-31T23:59:59.999999Z") == .real(end.nextDown))
        #expect(ISO8601Text.string(seconds: end.nextDown) == "9999-12-31T23:59:59.999968Z")
        #expect(try seconds("9999-12-31T23:59:59.999968Z") == .real(end.nextDown), "what the export writes reads back")
        #expect(try seconds("9999-12-31T23:59:59.5-01:00") == .failure(.invalidValue), "10000-01-01T00:59:59.5Z")
        #expect(try seconds("9999-12-31T23:59:60Z") == .failure(.invalidValue), "a leap second counts into 10000")
        #expect(try seconds("253402300799.5", formats: [.epochSeconds]) == .real(253_402_300_799.5))
        #expect(try seconds("253402300800", formats: [.epochSeconds]) == .failure(.invalidValue))
    }

    @Test func epochSecondsAndMilliseconds() throws {
        #expect(try seconds("1767603600", formats: [.epochSeconds]) == .real(1_767_603_600))
        #expect(try seconds("1767603600.25", formats: [.epochSeconds]) == .real(1_767_603_600.25))
        #expect(try seconds("-86400", formats: [.epochSeconds]) == .real(-86_400))
        #expect(try seconds("1767603600250", formats: [.epochMilliseconds]) == .real(1_767_603_600.25))
        #expect(try seconds("1767603600250", formats: [.epochSeconds]) == .failure(.invalidValue), "past year 9999")
        #expect(try seconds("2026-01-05", formats: [.epochSeconds]) == .failure(.invalidValue))
        #expect(try seconds("nan", formats: [.epochSeconds]) == .failure(.invalidValue))
        let epoch = try converter(.date, options: ConversionOptions(dateFormats: [.epochMilliseconds]))
        #expect(epoch.convert("1767603600000", kind: .number) == .real(1_767_603_600))
    }

    @Test func customPatternsReadWhatTheySay() throws {
        let european = try DateFormat(parsing: "dd/MM/yyyy")
        #expect(try seconds("05/01/2026", formats: [european]) == .real(1_767_571_200))
        #expect(try seconds("5/1/2026", formats: [european]) == .failure(.invalidValue))
        #expect(try seconds("31/04/2026", formats: [european]) == .failure(.invalidValue))

        let short = try DateFormat(parsing: "d/M/yyyy")
        #expect(try seconds("5/1/2026", formats: [short]) == .real(1_767_571_200))
        #expect(try seconds("05/01/2026", formats: [short]) == .real(1_767_571_200))

        let withTime = try DateFormat(parsing: "dd/MM/yyyy HH:mm:ss")
        #expect(try seconds("05/01/2026 09:00:30", formats: [withTime]) == .real(1_767_603_630))

        let full = try DateFormat(parsing: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX")
        #expect(try seconds("2026-01-05T10:00:00.250+01:00", formats: [full]) == .real(1_767_603_600.25))
        #expect(try seconds("2026-01-05T09:00:00.250Z", formats: [full]) == .real(1_767_603_600.25))
        #expect(try seconds("2026-01-05T09:00:00.25Z", formats: [full]) == .failure(.invalidValue))
        #expect(try seconds("2026-01-05T10:00:00.250+0100", formats: [full]) == .failure(.invalidValue))

        let basic = try DateFormat(parsing: "yyyyMMddHHmmZ")
        #expect(try seconds("202601051000+0100", formats: [basic]) == .real(1_767_603_600))
        let quoted = try DateFormat(parsing: "'day' dd 'of' MM, yyyy 'o''clock'")
        #expect(try seconds("day 05 of 01, 2026 o'clock", formats: [quoted]) == .real(1_767_571_200))
    }

    @Test func formatsAreTriedInOrder() throws {
        let formats = [DateFormat.iso8601, try DateFormat(parsing: "dd/MM/yyyy"), .epochSeconds]
        #expect(try seconds("2026-01-05", formats: formats) == .real(1_767_571_200))
        #expect(try seconds("05/01/2026", formats: formats) == .real(1_767_571_200))
        #expect(try seconds("86400", formats: formats) == .real(86_400))
        let failure = try #require(try converter(.date, options: ConversionOptions(dateFormats: formats)).failure("x"))
        #expect(
            failure.message == "expected a date in ISO-8601 (2026-01-05T09:00:00Z), dd/MM/yyyy or seconds since 1970")
        let two = try converter(
            .date, options: ConversionOptions(dateFormats: [.iso8601, try DateFormat(parsing: "dd/MM/yyyy")]))
        #expect(two.failure("5 Jan")?.message == "expected a date in ISO-8601 (2026-01-05T09:00:00Z) or dd/MM/yyyy")
    }

    @Test(arguments: [
        ("dd MMM yyyy", "'MMM' is not supported; use yyyy, MM, M, dd, d, HH, H, mm, m, ss, s, S…, X, XX, XXX, Z"),
        ("yy-MM-dd", "'yy' is not supported; use yyyy, MM, M, dd, d, HH, H, mm, m, ss, s, S…, X, XX, XXX, Z"),
        ("yyyy-MM-dd hh:mm a", "'hh' is not supported; use yyyy, MM, M, dd, d, HH, H, mm, m, ss, s, S…, X, XX, XXX, Z"),
        ("yyyy-MM", "the pattern has no day (dd)"),
        ("MM/dd", "the pattern has no year (yyyy)"),
        ("yyyy-MM-dd'T", "a quote opened at character 11 is not closed"),
        ("yyyy-MM-dd-dd", "'dd' names a field a second time"),
        ("yyyy-MM-dd XX Z", "'Z' names a field a second time"),
    ])
    func patternsThatCannotBeReadAreRefusedWhenCompiled(pattern: String, message: String) {
        let error = #expect(throws: DatePattern.SyntaxError.self) { try DatePattern(pattern) }
        #expect(error?.message == message)
        #expect(error?.description == "date pattern '\(pattern)': \(message)")
    }

    @Test func formatsDecodeFromAndEncodeToOneString() throws {
        let json = Data(#"["iso8601","epochSeconds","epochMilliseconds","dd/MM/yyyy"]"#.utf8)
        let formats = try JSONDecoder().decode([DateFormat].self, from: json)
        #expect(formats == [.iso8601, .epochSeconds, .epochMilliseconds, .pattern(try DatePattern("dd/MM/yyyy"))])
        #expect(
            try JSONEncoder().encode(formats)
                == Data(#"["iso8601","epochSeconds","epochMilliseconds","dd\/MM\/yyyy"]"#.utf8))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([DateFormat].self, from: Data(#"["MMM"]"#.utf8))
        }
    }

    @Test func optionsDecodeWithDefaultsForWhatIsMissing() throws {
        let options = try JSONDecoder().decode(
            ConversionOptions.self, from: Data(#"{"dateFormats":["dd/MM/yyyy"],"arraySeparator":";"}"#.utf8))
        #expect(options.dateFormats == [.pattern(try DatePattern("dd/MM/yyyy"))])
        #expect(options.arraySeparator == ";")
        #expect(options.trueTokens == ConversionOptions.defaultTrueTokens)
        #expect(options.trimsStrings == false)
        let empty = try JSONDecoder().decode(ConversionOptions.self, from: Data("{}".utf8))
        #expect(empty == ConversionOptions())
        let roundTrip = try JSONDecoder().decode(ConversionOptions.self, from: JSONEncoder().encode(options))
        #expect(roundTrip == options)
    }
}
