/// A value as SQLite stores it: one of its five storage classes.
public enum SQLiteValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// SQLite's five storage classes, without a value (see ``Statement/storageClass(at:)``).
    public enum StorageClass: Sendable, Hashable {
        case null, integer, real, text, blob
    }

    /// Whether this is `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The integer value, or `nil` when the value is not an integer.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The real value (integers converted), or `nil`.
    public var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The text value, or `nil` when the value is not text.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value):
            "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        case .blob(let bytes): "x'" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "'"
        }
    }
}
