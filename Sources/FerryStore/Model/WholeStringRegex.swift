import Foundation

/// A regular expression that must match the whole string, as Core Data's regex rules and NSPredicate's MATCHES
/// do. The one place Ferry compiles such patterns: model defaults, validation and predicates all use it.
struct WholeStringRegex: Sendable {
    private let expression: NSRegularExpression

    /// Compiles `pattern`.
    ///
    /// The pattern is compiled on its own first, because wrapping an unbalanced pattern such as `a)|(b` could make
    /// it valid with another meaning. It is then wrapped as `\A(?:pattern)\z`: the `.anchored` option pins the
    /// start only, and the first match of an alternation (`a|ab` on "ab") may be shorter than the string.
    /// - Throws: the error of `NSRegularExpression` when the pattern does not compile.
    init(_ pattern: String, caseInsensitive: Bool = false) throws {
        _ = try NSRegularExpression(pattern: pattern)
        expression = try NSRegularExpression(
            pattern: "\\A(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
    }

    /// Whether the pattern matches all of `string`.
    func matches(_ string: String) -> Bool {
        expression.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }
}
