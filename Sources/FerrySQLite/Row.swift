/// One result row, copied out of SQLite: safe to keep after the statement moves on.
public struct Row: Sendable, Hashable {
    /// The values, in column order.
    public var values: [SQLiteValue]

    /// Creates a row from its values.
    public init(_ values: [SQLiteValue]) {
        self.values = values
    }

    /// The number of columns.
    public var count: Int { values.count }

    /// The value of column `index`, from 0.
    public subscript(index: Int) -> SQLiteValue { values[index] }
}
