public import FerryStore

/// How field texts become attribute values: trimming, boolean tokens, date formats and how arrays become strings.
///
/// Values of every type but string are always trimmed of ASCII whitespace (space, tab, CR, LF, VT, FF) before
/// they are read; string values are trimmed only when ``trimsStrings`` is on. After trimming, an empty field is
/// null for every type except string (Our rule), where it stays the empty string.
///
/// Decoding fills every missing key with its default, so a pipeline file names only what it changes:
///
/// ```yaml
/// conversion:
///   dateFormats: [iso8601, "dd/MM/yyyy"]
///   arraySeparator: ";"
/// ```
public struct ConversionOptions: Sendable, Hashable, Codable {
    /// The default true tokens: `true`, `yes`, `y`, `t`, `1`.
    public static let defaultTrueTokens = ["true", "yes", "y", "t", "1"]
    /// The default false tokens: `false`, `no`, `n`, `f`, `0`.
    public static let defaultFalseTokens = ["false", "no", "n", "f", "0"]

    /// Whether string values lose leading and trailing ASCII whitespace. Off by default: text is kept as written.
    public var trimsStrings: Bool
    /// The texts read as `true`, matched ignoring ASCII case (JSON `true` always is).
    public var trueTokens: [String]
    /// The texts read as `false`, matched ignoring ASCII case (JSON `false` always is).
    public var falseTokens: [String]
    /// The formats a date may be written in, tried in order. Defaults to ISO-8601 alone.
    public var dateFormats: [DateFormat]
    /// What joins the elements of a JSON array given for a string attribute (`["a","b"]` with `;` gives `a;b`).
    /// `nil` (the default) keeps the array's compact JSON text. Only arrays of strings, numbers and booleans are
    /// joined; an array holding `null`, an object or an array keeps its JSON text.
    public var arraySeparator: String?

    /// Creates options; every parameter has the default described on its property.
    public init(
        trimsStrings: Bool = false, trueTokens: [String] = Self.defaultTrueTokens,
        falseTokens: [String] = Self.defaultFalseTokens, dateFormats: [DateFormat] = [.iso8601],
        arraySeparator: String? = nil
    ) {
        self.trimsStrings = trimsStrings
        self.trueTokens = trueTokens
        self.falseTokens = falseTokens
        self.dateFormats = dateFormats
        self.arraySeparator = arraySeparator
    }

    private enum CodingKeys: String, CodingKey {
        case trimsStrings, trueTokens, falseTokens, dateFormats, arraySeparator
    }

    /// Decodes options, taking the default for every key that is missing.
    ///
    /// - Throws: `DecodingError` for a value of the wrong type or a date pattern that does not compile.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ConversionOptions()
        trimsStrings = try container.decodeIfPresent(Bool.self, forKey: .trimsStrings) ?? defaults.trimsStrings
        trueTokens = try container.decodeIfPresent([String].self, forKey: .trueTokens) ?? defaults.trueTokens
        falseTokens = try container.decodeIfPresent([String].self, forKey: .falseTokens) ?? defaults.falseTokens
        dateFormats = try container.decodeIfPresent([DateFormat].self, forKey: .dateFormats) ?? defaults.dateFormats
        arraySeparator = try container.decodeIfPresent(String.self, forKey: .arraySeparator)
    }

    /// Why these options cannot be used, or `nil` when they can: no date format, an empty or whitespace-padded
    /// token, or a token that is both true and false.
    public var problem: String? {
        if dateFormats.isEmpty { return "dateFormats is empty: name at least one date format" }
        for token in trueTokens + falseTokens {
            if token.isEmpty { return "a boolean token is empty (empty fields are null)" }
            if token.utf8.first?.isASCIIWhitespace == true || token.utf8.last?.isASCIIWhitespace == true {
                return "the boolean token '\(token)' starts or ends with whitespace, which trimming removes"
            }
        }
        let lowerTrue = Set(trueTokens.map { $0.lowercasedASCII })
        if let both = falseTokens.first(where: { lowerTrue.contains($0.lowercasedASCII) }) {
            return "'\(both)' is both a true and a false token"
        }
        return nil
    }
}

extension String {
    /// The string with ASCII upper-case letters made lower-case (and nothing else changed).
    var lowercasedASCII: String {
        String(decoding: utf8.map(\.asciiLowercased), as: UTF8.self)
    }
}
