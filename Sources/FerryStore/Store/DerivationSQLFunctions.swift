import FerrySQLite
import Foundation

/// The SQL functions that derived-attribute triggers call (see `StoreSchema+Derivations.swift`), beside
/// `ferry_fold` (`FetchPredicate.registerSQLFunctions(on:)`) and `ferry_decimal` (batch updates).
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
    /// `ferry_decimal_avg(list)`: the mean, as decimal text, of the numbers in `list`: their exact sum divided by
    /// their count in `Decimal` (38 significant digits); NULL for NULL (no members) or when a member is not a number.
    static let decimalAverage = "ferry_decimal_avg"
    /// `ferry_decimal_min(list)`: the smallest of the numbers in `list`, compared as numbers (not as text), as
    /// decimal text; NULL for NULL (no members) or when a member is not a number.
    static let decimalMinimum = "ferry_decimal_min"
    /// `ferry_decimal_max(list)`: the largest of the numbers in `list`, as `ferry_decimal_min` takes the smallest.
    static let decimalMaximum = "ferry_decimal_max"

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
            guard let values = numbers(in: arguments[0]) else { return .null }
            return .text(StoredValueCodec.text(of: values.reduce(0, +)))
        }
        try connection.createFunction(decimalAverage, argumentCount: 1) { arguments in
            guard let values = numbers(in: arguments[0]), !values.isEmpty else { return .null }
            let mean = values.reduce(0, +) / Decimal(values.count)
            return mean.isNaN ? .null : .text(StoredValueCodec.text(of: mean))
        }
        try connection.createFunction(decimalMinimum, argumentCount: 1) { arguments in
            numbers(in: arguments[0])?.min().map { .text(StoredValueCodec.text(of: $0)) } ?? .null
        }
        try connection.createFunction(decimalMaximum, argumentCount: 1) { arguments in
            numbers(in: arguments[0])?.max().map { .text(StoredValueCodec.text(of: $0)) } ?? .null
        }
    }

    /// The numbers of a space-separated `list` (what `group_concat(column, ' ')` gives): none for NULL (no members,
    /// or none with a value), `nil` when a member is not a number.
    private static func numbers(in list: SQLiteValue) -> [Decimal]? {
        let text: String
        switch list {
        case .null: return []
        case .text(let value): text = value
        case .integer(let integer): text = String(integer)
        case .real(let real): text = "\(real)"
        case .blob: return nil
        }
        var values: [Decimal] = []
        for member in text.split(separator: " ") {
            guard let value = number(String(member)) else { return nil }
            values.append(value)
        }
        return values
    }

    /// `text` as an exact decimal: decimal text and integers as written, a real's text (`1.5`, `1e+20`) through
    /// `Double`.
    private static func number(_ text: String) -> Decimal? {
        if let decimal = StoredValueCodec.decimal(from: text) { return decimal }
        guard let real = Double(text), real.isFinite else { return nil }
        return Decimal(string: "\(real)", locale: Locale(identifier: "en_US_POSIX"))
    }
}
