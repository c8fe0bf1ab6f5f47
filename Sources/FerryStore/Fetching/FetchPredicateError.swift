/// Why a predicate could not be parsed or compiled, and where.
///
/// Parse errors point at a 1-based column (in characters) of the format string:
///
/// ```
/// column 8: unexpected '>'; expected an expression
/// ```
///
/// Compile errors name the entity and the key path: `Product has no attribute or relationship 'colour' (key path
/// 'colour')`. The description never contains bound values, only the format (which holds `%@` placeholders,
/// not their arguments).
public struct FetchPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; new codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name, such as `syntax`.
        public var rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The format string is malformed.
        public static let syntax = Code(rawValue: "syntax")
        /// A format specifier has no argument, an argument has the wrong kind, or arguments are left over.
        public static let argument = Code(rawValue: "argument")
        /// A `$VARIABLE` was not substituted before compiling.
        public static let unboundVariable = Code(rawValue: "unboundVariable")
        /// The entity to compile for is not in the model.
        public static let unknownEntity = Code(rawValue: "unknownEntity")
        /// A key path names no stored attribute or relationship.
        public static let unknownKeyPath = Code(rawValue: "unknownKeyPath")
        /// A key path goes through a to-many relationship without `ANY`, `ALL`, `NONE` or `@count`.
        public static let toManyKeyPath = Code(rawValue: "toManyKeyPath")
        /// The two sides of a comparison cannot be compared (a string attribute with a number…).
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A construct the SQLite store cannot evaluate (ordering against nil, a transformable attribute…).
        public static let unsupported = Code(rawValue: "unsupported")
        /// A `MATCHES` pattern is not a valid regular expression.
        public static let invalidRegularExpression = Code(rawValue: "invalidRegularExpression")
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, without the column.
    public var message: String
    /// The format string, or the description of the predicate being compiled.
    public var format: String
    /// The 1-based column, in characters, for errors found while parsing.
    public var column: Int?

    /// Creates an error.
    public init(code: Code, message: String, format: String, column: Int? = nil) {
        self.code = code
        self.message = message
        self.format = format
        self.column = column
    }

    /// `column 8: unexpected '>'; expected an expression`, or the message alone when there is no column.
    public var description: String {
        column.map { "column \($0): \(message)" } ?? message
    }

    /// The description followed by the format string and a caret under the column, for terminals:
    ///
    /// ```
    /// column 8: unexpected '>'; expected an expression
    ///     price >> 3
    ///            ^
    /// ```
    public var annotatedDescription: String {
        guard let column else { return "\(message)\n    \(format)" }
        let line = format.replacingTabsAndNewlines()
        return "\(description)\n    \(line)\n    \(String(repeating: " ", count: max(column - 1, 0)))^"
    }
}

extension String {
    /// The string on one line, each tab or line break shown as one space so that columns still line up.
    fileprivate func replacingTabsAndNewlines() -> String {
        String(map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }
}
