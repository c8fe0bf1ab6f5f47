import Foundation

/// A failure reported by libpq or the PostgreSQL server: what Ferry was doing, the server's SQLSTATE and message,
/// and the statement, with any password masked.
///
/// The description never holds row values beyond what the server's own message quotes, and never a password: the
/// connection URL appears only through ``ConnectionURL/masked``.
///
/// ```swift
/// do { try connection.execute("INSERT …") } catch let error as PostgresError where error.sqlState == "23505" { … }
/// ```
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it was.
    package enum Kind: String, Sendable, Hashable {
        /// The connection could not be made: a wrong host, port, database, user or password.
        case connectionFailed
        /// The connection broke while in use: the server went away.
        case connectionLost
        /// The server refused a statement (see ``PostgresError/sqlState``).
        case statementFailed
    }

    /// What kind of failure it was.
    package var kind: Kind
    /// The server's five-character SQLSTATE (`23505` unique violation, `22P02` invalid text…), when it sent one.
    package var sqlState: String?
    /// libpq's or the server's message, first line, password masked.
    package var message: String
    /// The server's detail and context lines (such as `COPY products, line 3, column price`), when it sent them.
    package var detail: String?
    /// What Ferry was doing: `connecting to postgresql://ferry:***@localhost/catalog`, or the statement.
    package var doing: String

    /// An error; the password of `url` is masked in `message`, `detail` and `doing`.
    package init(
        _ kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil, doing: String,
        masking url: ConnectionURL? = nil
    ) {
        self.kind = kind
        self.sqlState = sqlState
        let mask = { (text: String) in url?.mask(text) ?? text }
        self.message = mask(message.trimmingTrailingNewlines)
        self.detail = detail.map { mask($0.trimmingTrailingNewlines) }
        self.doing = mask(doing)
    }

    /// Whether the row data was at fault (SQLSTATE classes 22 data exception and 23 integrity constraint), so
    /// that the record can be rejected and the publish go on.
    package var isDataError: Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("22") || sqlState.hasPrefix("23")
    }

    package var description: String {
        var text = "PostgreSQL: \(message)"
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let detail, !detail.isEmpty { text += "; \(detail)" }
        return text + " — while \(doing)"
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == "\r" { text = text.dropLast() }
        return String(text)
    }

    /// `self` with every occurrence of `target` replaced, without Foundation.
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
