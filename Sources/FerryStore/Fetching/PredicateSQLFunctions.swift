package import FerrySQLite
internal import Foundation

extension FetchPredicate {
    /// Registers the SQL functions that compiled predicates call, on one connection; every connection that runs
    /// predicate SQL needs them (call this right after opening it):
    ///
    /// - `ferry_fold(text, caseInsensitive, diacriticInsensitive)`: `text` folded as Foundation folds strings
    ///   for `[c]`, `[d]` and `[cd]` (Unicode-aware: "Café" folds to "cafe" under `[cd]`), then NFC-normalised;
    ///   NULL stays NULL.
    /// - `ferry_regexp(pattern, text, options)`: 1 when the regular expression matches the whole of `text`,
    ///   0 when not, NULL when either is NULL; `options` is 1 for `[c]`, 2 for `[d]`, 3 for both.
    ///
    /// Both are deterministic. It also registers the collations that sort descriptors with a localized comparison
    /// name (`ferry_localized`, `ferry_localized_nocase`, `ferry_localized_standard`).
    ///
    /// - Throws: FerrySQLite's `SQLiteError` when SQLite refuses a registration.
    package static func registerSQLFunctions(on connection: Connection) throws {
        try connection.createFunction(PredicateSQLFunctions.fold, argumentCount: 3) { arguments in
            guard case .text(let text) = arguments[0] else { return arguments[0] }
            var options: Options = []
            if arguments[1].integer == 1 { options.insert(.caseInsensitive) }
            if arguments[2].integer == 1 { options.insert(.diacriticInsensitive) }
            return .text(PredicateSQLFunctions.fold(text, options))
        }
        let cache = RegularExpressionCache()
        try connection.createFunction(PredicateSQLFunctions.regexp, argumentCount: 3) { arguments in
            guard case .text(let pattern) = arguments[0] else { return .null }
            let text: String
            switch arguments[1] {
            case .text(let value): text = value
            case .integer(let value): text = String(value)
            case .real(let value): text = String(value)
            case .null, .blob: return .null
            }
            let options = Options(rawValue: Int(arguments[2].integer ?? 0))
            let expression = try cache.expression(for: pattern, options: options)
            return .integer(PredicateSQLFunctions.matches(expression, text, options: options) ? 1 : 0)
        }
        try SortCollations.register(on: connection)
    }
}

/// The text helpers shared by the SQL compiler (which prepares bound values) and the SQL functions (which
/// prepare column values), so that both sides of a comparison are treated alike.
enum PredicateSQLFunctions {
    static let fold = "ferry_fold"
    static let regexp = "ferry_regexp"

    /// `text` folded for `[c]`/`[d]` and NFC-normalised, so precomposed and decomposed accents compare equal.
    static func fold(_ text: String, _ options: FetchPredicate.Options) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        let folded = folding.isEmpty ? text : text.folding(options: folding, locale: nil)
        return folded.precomposedStringWithCanonicalMapping
    }

    /// `text` as a GLOB pattern that matches exactly `text`: each of `*`, `?` and `[` becomes a one-character
    /// class (`[*]`, `[?]`, `[[]`), the only escape GLOB has.
    static func globLiteral(_ text: String) -> String {
        var pattern = ""
        for character in text {
            switch character {
            case "*", "?", "[": pattern += "[\(character)]"
            default: pattern.append(character)
            }
        }
        return pattern
    }

    /// A Core Data LIKE pattern (`*` any run, `?` one character, `\` escapes the next character) as a GLOB
    /// pattern. GLOB is case-sensitive and counts characters, not bytes, as Core Data's LIKE does; SQLite's own
    /// LIKE is neither case-sensitive for ASCII nor aware of `*` and `?`.
    static func globPattern(like pattern: String) -> String {
        var glob = ""
        var isEscaped = false
        for character in pattern {
            if isEscaped {
                glob += globLiteral(String(character))
                isEscaped = false
                continue
            }
            switch character {
            case "\\": isEscaped = true
            case "*", "?": glob.append(character)
            default: glob += globLiteral(String(character))
            }
        }
        if isEscaped { glob += globLiteral("\\") }
        return glob
    }

    /// Compiles a MATCHES pattern so that it must match the whole string, as ICU's `matches()` does for Core Data.
    ///
    /// - Throws: the error of `NSRegularExpression` when the pattern is invalid.
    static func regularExpression(_ pattern: String, options: FetchPredicate.Options) throws -> WholeStringRegex {
        let source = options.contains(.diacriticInsensitive) ? fold(pattern, [.diacriticInsensitive]) : pattern
        return try WholeStringRegex(source, caseInsensitive: options.contains(.caseInsensitive))
    }

    /// Whether `expression` (from ``regularExpression(_:options:)``) matches `text`.
    static func matches(_ expression: WholeStringRegex, _ text: String, options: FetchPredicate.Options) -> Bool {
        expression.matches(options.contains(.diacriticInsensitive) ? fold(text, [.diacriticInsensitive]) : text)
    }
}

/// The compiled regular expressions of one connection's `ferry_regexp` calls, so that a statement scanning many
/// rows compiles its pattern once. Used only by the connection's own executor, like the connection.
private final class RegularExpressionCache {
    private struct Key: Hashable {
        var pattern: String
        var options: Int
    }

    private var expressions: [Key: WholeStringRegex] = [:]
    private let capacity = 32

    func expression(for pattern: String, options: FetchPredicate.Options) throws -> WholeStringRegex {
        let key = Key(pattern: pattern, options: options.rawValue)
        if let cached = expressions[key] { return cached }
        let compiled: WholeStringRegex
        do {
            compiled = try PredicateSQLFunctions.regularExpression(pattern, options: options)
        } catch {
            throw FetchPredicateError(
                code: .invalidRegularExpression, message: "MATCHES was given an invalid regular expression",
                format: "")
        }
        if expressions.count >= capacity { expressions.removeAll(keepingCapacity: true) }
        expressions[key] = compiled
        return compiled
    }
}
