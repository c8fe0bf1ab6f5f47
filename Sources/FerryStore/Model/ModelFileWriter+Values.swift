import Foundation

/// Spelling names, texts and values so that ``ModelFileParser`` reads back exactly what was written: plain where
/// that cannot be misread, double-quoted (with escapes) everywhere else.
extension ModelFileWriter {
    /// Words that YAML 1.1 or 1.2 reads as null or booleans when plain; they are always quoted.
    private static let reservedWords: Set<String> = ["null", "true", "false", "yes", "no", "on", "off", "y", "n"]

    /// An entity, property or template name: plain when it is an identifier that YAML reads as text, else quoted.
    static func name(_ name: String) -> String {
        let scalars = name.unicodeScalars
        let isPlain =
            scalars.first.map { isASCIILetter($0) || $0 == "_" } == true
            && scalars.allSatisfy { isASCIILetter($0) || isASCIIDigit($0) || $0 == "_" }
            && !reservedWords.contains(name.lowercased())
        return isPlain ? name : quoted(name)
    }

    /// A text value (a default, a regex, a derivation, a predicate…): plain when made of letters, digits and
    /// `_ . + -` only, starting with a letter, digit or `_`, and not a reserved word; else quoted.
    static func text(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let isPlain =
            scalars.first.map { isASCIILetter($0) || isASCIIDigit($0) || $0 == "_" } == true
            && scalars.allSatisfy { isASCIILetter($0) || isASCIIDigit($0) || "_.+-".unicodeScalars.contains($0) }
            && !reservedWords.contains(text.lowercased())
        return isPlain ? text : quoted(text)
    }

    /// `text` as a YAML double-quoted scalar. Backslashes and quotes are escaped, and so is every character that
    /// YAML would fold or refuse: line breaks (including U+0085, U+2028 and U+2029, which a quoted scalar folds
    /// into spaces), tabs, other control characters, the byte order mark and the noncharacters U+FFFE and U+FFFF.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where needsEscape(scalar): result += "\\u" + hex(scalar.value, digits: 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A default value, spelled as the parser reads values of its kind (see ``ModelFileParser/value(_:type:)``).
    static func spelling(of value: AttributeValue) -> String {
        switch value {
        case .integer(let integer): String(integer)
        // Swift's shortest spelling that reads back as the same double, including -0.0.
        case .double(let double): text("\(double)")
        case .decimal(let decimal): text("\(decimal)")
        case .string(let string): text(string)
        case .boolean(let boolean): boolean ? "true" : "false"
        case .date(let date): spelling(of: date)
        case .binary(let data), .transformable(let data): text(data.base64EncodedString())
        case .uuid(let uuid): uuid.uuidString
        case .uri(let url): text(url.absoluteString)
        }
    }

    /// A `min` or `max`: a date as ISO-8601 when that is exact, other numbers without a needless `.0`.
    static func spelling(ofBound bound: Double, type: AttributeType) -> String {
        if type == .date { return spelling(of: Date(timeIntervalSince1970: bound)) }
        if bound.rounded() == bound, abs(bound) < 1e15, bound != 0 || bound.sign == .plus {
            return String(Int64(bound))
        }
        return text("\(bound)")
    }

    /// A date as ISO-8601 (`2026-01-05T09:00:00Z`) when it is a whole second that reads back exactly, else as
    /// seconds since 1970 (which the parser also reads for dates).
    static func spelling(of date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        if seconds.rounded() == seconds {
            let iso = ModelFileParser.isoText(of: date)
            if ModelFileParser.date(iso) == date { return quoted(iso) }
        }
        return text("\(seconds)")
    }

    // MARK: - Characters

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isASCIIDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    /// Whether YAML would not keep `scalar` as written inside a double-quoted scalar.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
