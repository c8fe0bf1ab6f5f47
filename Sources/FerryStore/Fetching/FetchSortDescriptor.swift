/// How a fetch orders its results, as Core Data's `NSSortDescriptor`: a key path, a direction and a comparison.
///
/// Named `FetchSortDescriptor` because Foundation has a generic `SortDescriptor` of its own, and a file importing
/// both modules could not say `SortDescriptor` without qualifying it.
///
/// ```swift
/// let byCategoryThenPrice = [
///     FetchSortDescriptor(key: "category.name", comparison: .caseInsensitive),
///     FetchSortDescriptor(key: "price", ascending: false),
/// ]
/// ```
///
/// The key path names a stored attribute of the fetched entity, or one reached through to-one relationships
/// (`category.name`, `category.parent.rank`). The store sorts in SQL:
/// - nil sorts before every value (SQLite's rule, also Core Data's on SQLite);
/// - strings by Unicode scalars, or folded as a predicate's `[c]` folds them with ``Comparison/caseInsensitive``,
///   or by the current locale's collation with the `localized` comparisons (strings equal under the comparison then
///   keep their case-sensitive order, so the order stays total);
/// - decimals as numbers (they are stored as exact text), dates by time, booleans with `false` first.
///
/// A fetch always ends its ordering with the primary key, so objects whose sort keys are equal come back in the
/// order they were inserted, on every run.
public struct FetchSortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// How two values of the key path are compared.
    public enum Comparison: Sendable, Hashable {
        /// The values' natural order (Core Data's `compare:`).
        case standard
        /// Strings ignore case, Unicode-aware (Core Data's `caseInsensitiveCompare:`). Other types compare as with
        /// ``standard``.
        case caseInsensitive
        /// Strings by the current locale's collation (Core Data's `localizedCompare:`): "apple" before "Äpfel"
        /// before "b". Other types compare as with ``standard``.
        case localized
        /// Strings by the current locale's collation, ignoring case (`localizedCaseInsensitiveCompare:`).
        case localizedCaseInsensitive
        /// Strings as the Finder sorts file names (`localizedStandardCompare:`): by the current locale, ignoring
        /// case, and with runs of digits compared as numbers, so "File2" comes before "File10".
        case localizedStandard
    }

    /// The key path sorted on: `price`, `category.name`.
    public var key: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// How values are compared.
    public var comparison: Comparison

    /// Sorts on `key`, ascending unless told otherwise.
    public init(key: String, ascending: Bool = true, comparison: Comparison = .standard) {
        self.key = key
        self.ascending = ascending
        self.comparison = comparison
    }

    /// `name ASC`, `category.name DESC [c]`, `title ASC [localizedStandard]`: for messages and logs.
    public var description: String {
        let suffix: String
        switch comparison {
        case .standard: suffix = ""
        case .caseInsensitive: suffix = " [c]"
        case .localized: suffix = " [localized]"
        case .localizedCaseInsensitive: suffix = " [localizedCaseInsensitive]"
        case .localizedStandard: suffix = " [localizedStandard]"
        }
        return key + (ascending ? " ASC" : " DESC") + suffix
    }

    /// The descriptor with the direction reversed.
    public var reversed: FetchSortDescriptor {
        FetchSortDescriptor(key: key, ascending: !ascending, comparison: comparison)
    }
}
