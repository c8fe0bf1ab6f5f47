/// Prepared statements kept by their SQL text, so that hot statements are prepared once per connection.
struct StatementCache {
    private var statements: [String: Statement] = [:]

    /// The cached statement for `sql`, reset and with its bindings cleared, preparing it on first use.
    mutating func statement(for sql: String, preparingWith prepare: (String) throws -> Statement) rethrows
        -> Statement
    {
        if let cached = statements[sql] {
            cached.reset()
            cached.clearBindings()
            return cached
        }
        let prepared = try prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    /// Finalizes every cached statement.
    mutating func removeAll() {
        statements.removeAll()
    }
}
