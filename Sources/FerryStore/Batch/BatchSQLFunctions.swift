import FerrySQLite
import Foundation

/// The SQL functions batch updates call, registered on the connection that runs them.
enum BatchSQLFunctions {
    /// `ferry_decimal(op, lhs, rhs)`: `lhs op rhs` computed exactly in `Decimal`, as exact decimal text (what
    /// decimal columns store); `op` is `+`, `-`, `*` or `/`. Operands may be decimal text, integers or reals (a real
    /// counts as its shortest text, so `1.1` is exactly 1.1). NULL when an operand is NULL or not a number, or when
    /// dividing by zero, as SQL arithmetic gives.
    static let decimal = "ferry_decimal"

    /// Registers the functions on `connection` (replacing earlier registrations).
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses a registration.
    static func register(on connection: Connection) throws {
        try connection.createFunction(decimal, argumentCount: 3) { arguments in
            guard case .text(let operation) = arguments[0], let lhs = number(arguments[1]),
                let rhs = number(arguments[2])
            else { return .null }
            let result: Decimal
            switch operation {
            case "+": result = lhs + rhs
            case "-": result = lhs - rhs
            case "*": result = lhs * rhs
            case "/":
                guard !rhs.isZero else { return .null }
                result = lhs / rhs
            default: return .null
            }
            guard !result.isNaN else { return .null }
            return .text(StoredValueCodec.text(of: result))
        }
    }

    /// `value` as an exact decimal, or nil.
    private static func number(_ value: SQLiteValue) -> Decimal? {
        switch value {
        case .integer(let integer): Decimal(integer)
        case .real(let real) where real.isFinite: Decimal(string: "\(real)", locale: Locale(identifier: "en_US_POSIX"))
        case .text(let text): StoredValueCodec.decimal(from: text)
        default: nil
        }
    }
}
