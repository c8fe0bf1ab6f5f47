internal import CSQLite3

/// An error reported by SQLite, with the statement it came from.
///
/// The description names the code, SQLite's message and the SQL text, never bound values: logs travel.
///
/// ```swift
/// do { try insert.step() } catch let error as SQLiteError where error.code == .constraint { … }
/// ```
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// An SQLite result code; the primary code is the low byte of the extended one.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The primary code (`SQLITE_CONSTRAINT` for `SQLITE_CONSTRAINT_UNIQUE`).
        public var primary: Code { Code(rawValue: rawValue & 0xFF) }

        public static let error = Code(rawValue: SQLITE_ERROR)
        public static let busy = Code(rawValue: SQLITE_BUSY)
        public static let locked = Code(rawValue: SQLITE_LOCKED)
        public static let readOnly = Code(rawValue: SQLITE_READONLY)
        public static let ioError = Code(rawValue: SQLITE_IOERR)
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        public static let full = Code(rawValue: SQLITE_FULL)
        public static let cannotOpen = Code(rawValue: SQLITE_CANTOPEN)
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        public static let mismatch = Code(rawValue: SQLITE_MISMATCH)
        public static let misuse = Code(rawValue: SQLITE_MISUSE)
        public static let range = Code(rawValue: SQLITE_RANGE)
        public static let notADatabase = Code(rawValue: SQLITE_NOTADB)
        /// `SQLITE_CONSTRAINT_UNIQUE`: a UNIQUE index refused a row.
        public static let uniqueConstraint = Code(rawValue: SQLITE_CONSTRAINT | (8 << 8))
        /// `SQLITE_CONSTRAINT_NOTNULL`.
        public static let notNullConstraint = Code(rawValue: SQLITE_CONSTRAINT | (5 << 8))
        /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
        public static let foreignKeyConstraint = Code(rawValue: SQLITE_CONSTRAINT | (3 << 8))
    }

    /// The extended result code.
    public var extendedCode: Code
    /// The primary result code, for matching families of errors (`.constraint`, `.busy`…).
    public var code: Code { extendedCode.primary }
    /// SQLite's message.
    public var message: String
    /// The statement's SQL, when the error came from one.
    public var sql: String?

    /// Creates an error.
    public init(extendedCode: Code, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(extendedCode.rawValue): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}
