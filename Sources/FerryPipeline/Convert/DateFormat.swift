/// One way a date field may be written. ``ConversionOptions/dateFormats`` lists the ways tried, in order.
///
/// In pipeline files a format is one string: `iso8601`, `epochSeconds`, `epochMilliseconds`, or a
/// ``DatePattern`` such as `dd/MM/yyyy`.
///
/// ```swift
/// let formats = try ["iso8601", "dd/MM/yyyy"].map(DateFormat.init(parsing:))
/// ```
public enum DateFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    /// ISO-8601 / RFC 3339: `2026-01-05`, `2026-01-05T09:00`, `2026-01-05T09:00:00.250+01:00`, `2026-01-05 09:00Z`.
    /// Our rule: no zone means UTC. See `ISO8601Parser`.
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
    var expectationName: String {
        switch self {
        case .iso8601: "ISO-8601 (2026-01-05T09:00:00Z)"
        case .epochSeconds: "seconds since 1970"
        case .epochMilliseconds: "milliseconds since 1970"
        case .pattern(let pattern): pattern.source
        }
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
