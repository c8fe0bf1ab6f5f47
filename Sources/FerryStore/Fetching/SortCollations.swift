import FerrySQLite
import Foundation

/// The locale-aware string orders of ``FetchSortDescriptor/Comparison``, shared by the store (as SQLite collations
/// its ORDER BY names) and by the in-memory ordering of a fetch's unsaved objects, so both order alike.
///
/// The current locale is read at each comparison, as Core Data's `localizedCompare:` reads it. Texts the locale
/// finds equal (say "a" and "A" under the case-insensitive orders) compare equal here; the fetch then orders them by
/// their Unicode scalars, so the order stays total.
enum SortCollations {
    /// `localizedCompare:`.
    static let localized = "ferry_localized"
    /// `localizedCaseInsensitiveCompare:`.
    static let localizedCaseInsensitive = "ferry_localized_nocase"
    /// `localizedStandardCompare:`.
    static let localizedStandard = "ferry_localized_standard"

    /// The collation name for `comparison`, or nil when the comparison is not locale-aware.
    static func name(for comparison: FetchSortDescriptor.Comparison) -> String? {
        switch comparison {
        case .standard, .caseInsensitive: nil
        case .localized: localized
        case .localizedCaseInsensitive: localizedCaseInsensitive
        case .localizedStandard: localizedStandard
        }
    }

    /// -1, 0 or 1 as `lhs` sorts before, with or after `rhs` under `comparison` (which must be locale-aware).
    static func compare(_ lhs: String, _ rhs: String, _ comparison: FetchSortDescriptor.Comparison) -> Int {
        let result: ComparisonResult
        switch comparison {
        case .localizedCaseInsensitive: result = lhs.localizedCaseInsensitiveCompare(rhs)
        case .localizedStandard: result = lhs.localizedStandardCompare(rhs)
        default: result = lhs.localizedCompare(rhs)
        }
        return result.rawValue
    }

    /// Registers the three collations on `connection`.
    static func register(on connection: Connection) throws {
        for comparison in [FetchSortDescriptor.Comparison.localized, .localizedCaseInsensitive, .localizedStandard] {
            guard let name = name(for: comparison) else { continue }
            try connection.createCollation(name) { compare($0, $1, comparison) }
        }
    }
}
