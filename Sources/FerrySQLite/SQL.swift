/// Helpers for writing SQL text safely.
public enum SQL {
    /// `name` as a quoted SQL identifier: `"name"`, with embedded quotes doubled. Every identifier Ferry puts in
    /// SQL goes through this; values never do (they are bound).
    public static func identifier(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
