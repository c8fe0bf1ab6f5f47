import Foundation

/// Derivation expressions between Core Data's spelling and Ferry's.
///
/// Core Data writes aggregates as key paths ending in the aggregate (`items.@count`, `items.price.@sum`); Ferry's
/// model files write them first (`@count items`, `@sum items.price`), so a model read from Xcode and the same model
/// written in YAML have the same version hash. Key paths, `now()` and `canonical:(name)`-style functions are
/// spelled the same in both.
enum XcodeDerivation {
    /// The aggregates, with their `@`.
    static let aggregates = ["@count", "@sum", "@avg", "@min", "@max"]

    /// `expression` in Ferry's spelling: `items.@count` becomes `@count items`; anything else is kept, trimmed.
    static func ferrySyntax(of expression: String) -> String {
        let text = expression.trimmingCharacters(in: .whitespacesAndNewlines)
        for aggregate in aggregates where text.hasSuffix("." + aggregate) {
            let path = text.dropLast(aggregate.count + 1)
            if !path.isEmpty { return "\(aggregate) \(path)" }
        }
        return text
    }

    /// `expression` in Core Data's spelling: `@count items` becomes `items.@count`; anything else is kept.
    static func coreDataSyntax(of expression: String) -> String {
        let text = expression.trimmingCharacters(in: .whitespacesAndNewlines)
        for aggregate in aggregates where text.hasPrefix(aggregate + " ") {
            let path = text.dropFirst(aggregate.count + 1).trimmingCharacters(in: .whitespaces)
            if !path.isEmpty { return "\(path).\(aggregate)" }
        }
        return text
    }
}
