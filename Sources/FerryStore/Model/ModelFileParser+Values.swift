import Foundation
import Yams

/// Reading scalar values by what the model needs, not by YAML's own typing: `0.10` stays the exact decimal
/// `0.10`, `01234` stays the string `01234` when the attribute is a string, and only `true` and `false` are
/// booleans (YAML 1.1's `yes`, `on`… are not, so that a typo cannot turn into a value).
extension ModelFileParser {
    /// Whether `node` is YAML's null: an empty value, `~` or `null` (unquoted).
    static func isNull(_ node: Node) -> Bool {
        guard case .scalar(let scalar) = node else { return false }
        switch scalar.style {
        case .singleQuoted, .doubleQuoted, .literal, .folded: return false
        default: return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
        }
    }

    /// `a list`, `a mapping`, `nothing` or `'text'`, for messages.
    static func kind(of node: Node) -> String {
        switch node {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        case .scalar(let scalar): isNull(node) ? "nothing" : "'\(scalar.string)'"
        }
    }

    /// The text of a scalar; null, lists and mappings are reported as not being `key`'s kind of value.
    mutating func text(_ node: Node, _ key: String, _ element: ModelElement) -> String? {
        guard case .scalar(let scalar) = node, !Self.isNull(node) else {
            report(.invalidValue, "'\(key)' must be a name or text; found \(Self.kind(of: node))", element, node)
            return nil
        }
        return scalar.string
    }

    /// `true` or `false` (also `True`, `TRUE`…).
    mutating func bool(_ node: Node, _ key: String, _ element: ModelElement) -> Bool? {
        if case .scalar(let scalar) = node, let value = Self.boolean(scalar.string) { return value }
        report(.invalidValue, "'\(key)' must be true or false; found \(Self.kind(of: node))", element, node)
        return nil
    }

    /// A whole number, such as a length or a count.
    mutating func integer(_ node: Node, _ key: String, _ element: ModelElement) -> Int? {
        if case .scalar(let scalar) = node, let value = Int(scalar.string) { return value }
        report(.invalidValue, "'\(key)' must be a whole number; found \(Self.kind(of: node))", element, node)
        return nil
    }

    /// A bound for `min` or `max`: a number, or for dates also an ISO-8601 date (kept as seconds since 1970).
    mutating func bound(_ node: Node, _ key: String, type: AttributeType, _ element: ModelElement) -> Double? {
        if case .scalar(let scalar) = node {
            if let value = Double(scalar.string), value.isFinite { return value }
            if type == .date, let date = Self.date(scalar.string) { return date.timeIntervalSince1970 }
        }
        let expected =
            type == .date
            ? "an ISO-8601 date such as \(Self.dateExample) or a number of seconds"
            : "a number"
        report(.invalidValue, "'\(key)' must be \(expected); found \(Self.kind(of: node))", element, node)
        return nil
    }

    /// The default value `node` spells for an attribute of `type`; `nil` for null, and `nil` (reported) when it
    /// does not spell a value of that type.
    mutating func defaultValue(_ node: Node, type: AttributeType, _ element: ModelElement) -> AttributeValue? {
        if Self.isNull(node) { return nil }
        guard case .scalar(let scalar) = node else {
            report(.invalidDefault, "default must be a single value; found \(Self.kind(of: node))", element, node)
            return nil
        }
        if let value = Self.value(scalar.string, type: type) { return value }
        let expected: String
        switch type {
        case .integer16, .integer32, .integer64: expected = "a whole number"
        case .double, .float: expected = "a number"
        case .decimal: expected = "a decimal number such as 12.50"
        case .string: expected = "text"
        case .boolean: expected = "true or false"
        case .date: expected = "an ISO-8601 date such as \(Self.dateExample) or a number of seconds"
        case .binary: expected = "base64 text"
        case .uuid: expected = "a UUID such as 123E4567-E89B-12D3-A456-426614174000"
        case .uri: expected = "an absolute URI such as https://example.com/"
        case .transformable: expected = "base64 text of the value as its transformer encodes it"
        }
        report(
            .invalidDefault, "default '\(scalar.string)' is not a valid \(type.name); expected \(expected)",
            element, node)
        return nil
    }

    /// `text` as a value of `type`, or `nil` when it is not one.
    static func value(_ text: String, type: AttributeType) -> AttributeValue? {
        switch type {
        case .integer16, .integer32, .integer64: Int64(text).map { .integer($0) }
        case .double, .float: Double(text).flatMap { $0.isFinite ? .double($0) : nil }
        case .decimal: decimal(text).map { .decimal($0) }
        case .string: .string(text)
        case .boolean: boolean(text).map { .boolean($0) }
        case .date:
            (date(text) ?? Double(text).flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil })
                .map { .date($0) }
        case .binary: Data(base64Encoded: text).map { .binary($0) }
        case .uuid: UUID(uuidString: text).map { .uuid($0) }
        case .uri: URL(string: text).flatMap { $0.scheme == nil ? nil : .uri($0) }
        case .transformable: Data(base64Encoded: text).map { .transformable($0) }
        }
    }

    // MARK: - Spellings

    static let dateExample = "2026-01-05T09:00:00Z"

    /// `true`/`True`/`TRUE` or `false`/`False`/`FALSE` (YAML 1.2's core schema).
    static func boolean(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": true
        case "false", "False", "FALSE": false
        default: nil
        }
    }

    /// An exact decimal from text such as `-12.50` or `1e3`, nothing else (Foundation alone would read `12abc`
    /// as 12).
    static func decimal(_ text: String) -> Decimal? {
        var scalars = Substring(text).unicodeScalars[...]
        func digits() -> Int {
            var count = 0
            while let first = scalars.first, ("0"..."9").contains(first) {
                scalars.removeFirst()
                count += 1
            }
            return count
        }
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars.removeFirst() }
        guard digits() > 0 else { return nil }
        if scalars.first == "." {
            scalars.removeFirst()
            guard digits() > 0 else { return nil }
        }
        if let e = scalars.first, e == "e" || e == "E" {
            scalars.removeFirst()
            if let sign = scalars.first, sign == "+" || sign == "-" { scalars.removeFirst() }
            guard digits() > 0 else { return nil }
        }
        guard scalars.isEmpty else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// An ISO-8601 date and time with a time zone (`2026-01-05T09:00:00Z`, fractional seconds allowed), or a
    /// plain date (`2026-01-05`, midnight UTC).
    static func date(_ text: String) -> Date? {
        let optionSets: [ISO8601DateFormatter.Options] = [
            [.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate],
        ]
        for options in optionSets {
            // A formatter per call: this runs a few times per model load, and formatters are not Sendable.
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// `date` as ISO-8601 text, for messages.
    static func isoText(of date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
