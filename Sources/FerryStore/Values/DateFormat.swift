/// One way a date text may be written: the one owner of what a date text is, for an import's fields (its
/// conversion options list the formats tried, in order) and a migration's text → date conversion alike.
///
/// In pipeline files and on the command line a format is one string: `iso8601`, `epochSeconds`, `epochMilliseconds`, or a
/// ``DatePattern`` such as `dd/MM/yyyy`.
///
/// ```swift
/// let formats = try ["iso8601", "dd/MM/yyyy"].map(DateFormat.init(parsing:))
/// ```
public enum DateFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    /// ISO-8601 / RFC 3339: `2026-01-05`, `2026-01-05T09:00`, `2026-01-05T09:00:00.250+01:00`, `2026-01-05 09:00Z`.
    /// Our rule: no zone means UTC.
    case iso8601
    /// Seconds since 1970-01-01T00:00:00Z, as a decimal number (`1767603600`, `1767603600.25`, `-86400`).
    case epochSeconds
    /// Milliseconds since 1970-01-01T00:00:00Z, as a decimal number (`1767603600000`).
    case epochMilliseconds
    /// A custom pattern, compiled once.
    case pattern(DatePattern)

    /// The format a pipeline file names: `iso8601`, `epochSeconds`, `epochMilliseconds`, or a pattern.
    ///
    /// - Throws: ``DatePattern/SyntaxError`` when `text` is a pattern that does not compile.
    public init(parsing text: String) throws(DatePattern.SyntaxError) {
        switch text {
        case "iso8601": self = .iso8601
        case "epochSeconds": self = .epochSeconds
        case "epochMilliseconds": self = .epochMilliseconds
        default: self = .pattern(try DatePattern(text))
        }
    }

    /// The name a pipeline file uses: `iso8601`, `epochSeconds`, `epochMilliseconds`, or the pattern.
    public var description: String {
        switch self {
        case .iso8601: "iso8601"
        case .epochSeconds: "epochSeconds"
        case .epochMilliseconds: "epochMilliseconds"
        case .pattern(let pattern): pattern.source
        }
    }

    /// How a failure message names the format: `ISO-8601 (2026-01-05T09:00:00Z)`, `dd/MM/yyyy`…
    package var expectationName: String {
        switch self {
        case .iso8601: "ISO-8601 (2026-01-05T09:00:00Z)"
        case .epochSeconds: "seconds since 1970"
        case .epochMilliseconds: "milliseconds since 1970"
        case .pattern(let pattern): pattern.source
        }
    }

    /// The stored form of the date `text` spells (REAL seconds since 1970, rounded as a `Date` holds them) in the
    /// first of `formats` that reads all of it and gives a valid date within years 0000 to 9999, or `nil`.
    ///
    /// Epoch values must fall within those years like the other formats, which also catches milliseconds given
    /// where seconds were expected.
    package static func dateSeconds(_ text: UnsafeRawBufferPointer, formats: [DateFormat]) -> Double? {
        for format in formats {
            let seconds: Double?
            switch format {
            case .iso8601:
                seconds = ISO8601Parser.parse(text)?.secondsSince1970
            case .pattern(let pattern):
                seconds = pattern.parse(text)?.secondsSince1970
            case .epochSeconds:
                seconds = try? DoubleText.parse(text).get()
            case .epochMilliseconds:
                seconds = (try? DoubleText.parse(text).get()).map { $0 / 1_000 }
            }
            if let seconds, StoredValueCodec.dateSecondsRange.contains(seconds) {
                return StoredValueCodec.asHeldByDate(seconds)
            }
        }
        return nil
    }

    /// Decodes the format from one string, as ``init(parsing:)``.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is a pattern that does not compile.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try DateFormat(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the format as one string (``description``).
    ///
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
