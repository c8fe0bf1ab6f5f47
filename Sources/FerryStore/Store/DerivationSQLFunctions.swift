import FerrySQLite
import Foundation

/// The SQL functions that derived-attribute triggers call (see `StoreSchema+Derivations.swift`), beside
/// `ferry_fold` (``FetchPredicate/registerSQLFunctions(on:)``) and `ferry_decimal` (batch updates).
///
/// All are deterministic.
enum DerivationSQLFunctions {
    /// `ferry_lowercase(text)`: Unicode-aware lower case (SQLite's `lower` folds ASCII only); NULL stays NULL.
    static let lowercase = "ferry_lowercase"
    /// `ferry_uppercase(text)`: Unicode-aware upper case ("straße" becomes "STRASSE"); NULL stays NULL.
    static let uppercase = "ferry_uppercase"
    /// `ferry_decimal_sum(list)`: the exact sum, as decimal text, of the space-separated numbers in `list` (what
    /// `group_concat(column, ' ')` gives); "0" for NULL (no members), NULL when a member is not a number.
    static let decimalSum = "ferry_decimal_sum"

    /// Registers the functions on `connection` (replacing earlier registrations).
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses a registration.
    static func register(on connection: Connection) throws {
        try connection.createFunction(lowercase, argumentCount: 1) { arguments in
            guard case .text(let text) = arguments[0] else { return arguments[0] }
            return .text(text.lowercased())
        }
        try connection.createFunction(uppercase, argumentCount: 1) { arguments in
            guard case .text(let text) = arguments[0] else { return arguments[0] }
            return .text(text.uppercased())
        }
        try connection.createFunction(decimalSum, argumentCount: 1) { arguments in
            let list: String
            switch arguments[0] {
            case .null: return .text("0")
            case .text(let text): list = text
            case .integer(let integer): list = String(integer)
            case .real(let real): list = "\(real)"
            case .blob: return .null
            }
            var total = Decimal(0)
            for member in list.split(separator: " ") {
                guard let value = number(String(member)) else { return .null }
                total += value
            }
            return .text(StoredValueEncoder.text(of: total))
        }
    }

    /// `text` as an exact decimal: decimal text and integers as written, a real's text (`1.5`, `1e+20`) through
    /// `Double`.
    private static func number(_ text: String) -> Decimal? {
        if let decimal = FetchValueDecoder.decimal(from: text) { return decimal }
        guard let real = Double(text), real.isFinite else { return nil }
        return Decimal(string: "\(real)", locale: Locale(identifier: "en_US_POSIX"))
    }
}
