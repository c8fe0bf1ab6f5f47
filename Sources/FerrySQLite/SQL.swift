/// Helpers for writing SQL text safely.
public enum SQL {
    /// `name` as a quoted SQL identifier: `"name"`, with embedded quotes doubled. Every identifier Ferry puts in
    /// SQL goes through this; values never do (they are bound).
    public static func identifier(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// A table alias that never names, nor hides, a table of the user's: `"ferry_as_<name>"`, quoted. Entity and
    /// join-table names may not start with `ferry_`, so a query that names a table outright (a trigger's target, the
    /// table a correlated subquery compares against) still reaches that table with such an alias in scope; a short
    /// alias like `e` would shadow a table named `E`. Ferry's own tables never start with `ferry_as_`.
    public static func alias(_ name: String) -> String {
        identifier("ferry_as_" + name)
    }
}
