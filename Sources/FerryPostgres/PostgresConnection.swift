internal import CLibPQ
import Foundation

/// One libpq connection to a PostgreSQL server: statements with parameters, transactions, advisory locks and
/// `COPY … FROM STDIN` (see ``copy(_:rows:)``).
///
/// Calls block while the server works, so a connection lives on one thread (a store snapshot's queue, a test):
/// it is not `Sendable`. Parameters are always sent apart from the statement text (`$1`, `$2`), in text format;
/// identifiers go through ``PostgresConnection/identifier(_:)``.
///
/// ```swift
/// let connection = try PostgresConnection(url: ConnectionURL("postgresql://localhost/catalog"))
/// try connection.transaction {
///     try connection.execute("INSERT INTO products (sku, name) VALUES ($1, $2)", ["A-1", "Tea"])
/// }
/// let names = try connection.execute("SELECT name FROM products").rows.map { $0[0] }
/// ```
package final class PostgresConnection {
    /// The connection string, for masking and messages.
    package let url: ConnectionURL
    private let handle: OpaquePointer

    /// Connects to the server `url` names (libpq's rules for everything the URL leaves out: `PGHOST`, `PGPORT`,
    /// `PGUSER`, `PGPASSWORD`, `PGSERVICE`, `~/.pgpass`).
    ///
    /// - Throws: ``PostgresError`` `.connectionFailed` with libpq's message, the password masked.
    package init(url: ConnectionURL) throws {
        self.url = url
        guard let handle = PQconnectdb(url.text) else {
            throw PostgresError(
                .connectionFailed, message: "libpq could not allocate a connection", doing: "connecting to \(url)")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError(.connectionFailed, message: message, doing: "connecting to \(url)", masking: url)
        }
        self.handle = handle
        // Ferry's COPY text is UTF-8, and notices (such as "table does not exist, skipping") are not for the log.
        PQsetClientEncoding(handle, "UTF8")
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit {
        PQfinish(handle)
    }

    /// The server's version number (`150004` for 15.4).
    package var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// `name` quoted as a PostgreSQL identifier: `"order"`, `"my ""quoted"" table"`.
    package static func identifier(_ name: String) -> String {
        "\"" + name.replacingAll("\"", with: "\"\"") + "\""
    }

    /// `schema.table` or `table`, each part quoted.
    package static func qualifiedIdentifier(_ name: String) -> String {
        name.split(separator: ".", maxSplits: 1).map { identifier(String($0)) }.joined(separator: ".")
    }

    /// Runs one statement, with `parameters` bound to `$1`, `$2`… as text (`nil` is NULL), and returns its rows.
    ///
    /// - Throws: ``PostgresError`` `.statementFailed` with the SQLSTATE, `.connectionLost` when the server went away.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
        let result = withCStrings(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw failure(result, doing: sql)
        }
        return PostgresResult(copying: result)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws (the error goes on).
    ///
    /// - Throws: what `body` throws; ``PostgresError`` when BEGIN or COMMIT fails.
    package func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN")
        let result: Result
        do {
            result = try body()
        } catch {
            // The connection may be gone; the server rolls back an open transaction itself then.
            _ = try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
        return result
    }

    /// Takes the session-level advisory lock named `name` if no other session holds it; `false` when one does.
    /// It is released by ``unlock(_:)`` or when the connection closes (a killed process's included).
    ///
    /// - Throws: ``PostgresError``.
    package func tryAdvisoryLock(_ name: String) throws -> Bool {
        try execute("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", [name]).rows.first?[0] == "t"
    }

    /// Releases the advisory lock named `name`.
    ///
    /// - Throws: ``PostgresError``.
    package func unlock(_ name: String) throws {
        try execute("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [name])
    }

    /// The error for a failed result (or a missing one), with the server's fields.
    func failure(_ result: OpaquePointer?, doing: String) -> PostgresError {
        let field = { (code: Character) -> String? in
            guard let result, let value = PQresultErrorField(result, Int32(code.asciiValue ?? 0)) else { return nil }
            return String(cString: value)
        }
        let lost = PQstatus(handle) != CONNECTION_OK
        let message =
            field("M") ?? String(cString: PQerrorMessage(handle)).split(separator: "\n").first.map(String.init)
            ?? "unknown failure"
        let detail = [field("D"), field("W")].compactMap { $0 }.joined(separator: "; ")
        return PostgresError(
            lost ? .connectionLost : .statementFailed, sqlState: lost ? nil : field("C"), message: message,
            detail: detail.isEmpty ? nil : detail, doing: lost ? "\(doing) (the connection to \(url) broke)" : doing,
            masking: url)
    }

    /// Calls `body` with `strings` as C strings (NULL for `nil`), alive for the call.
    private func withCStrings<Result>(
        _ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> Result
    ) -> Result {
        let copies = strings.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }

    /// The raw handle, for the COPY extension.
    var rawHandle: OpaquePointer { handle }
}
