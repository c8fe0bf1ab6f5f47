package import FerryPostgres
import Foundation

/// A database of its own on the test PostgreSQL server, for one test: made with a unique name, so suites run in
/// parallel, and dropped by ``drop()``.
///
/// The server's URL comes from `FERRY_TEST_POSTGRES_URL`, which `make test` sets after starting a throwaway server
/// (`Tests/postgres-server.sh`). Without it the tests that need a server fail, saying so: they never skip.
public final class PostgresTestDatabase {
    /// Why no database could be made.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The database's connection URL (with the server's password).
    public let url: String
    /// The database's name.
    public let name: String
    /// The password in ``url``, for tests that check it never shows.
    public let password: String
    private let serverURL: String

    /// Makes a new, empty database on the test server.
    ///
    /// - Throws: ``Unavailable`` when `FERRY_TEST_POSTGRES_URL` is not set; `PostgresError` from the server.
    public init() throws {
        guard let server = ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"], !server.isEmpty else {
            throw Unavailable(
                description: "FERRY_TEST_POSTGRES_URL is not set: run the tests with `make test`, which starts a "
                    + "PostgreSQL server for them (Tests/postgres-server.sh) and sets it")
        }
        serverURL = server
        name = "ferry_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        guard var components = URLComponents(string: server) else {
            throw Unavailable(description: "FERRY_TEST_POSTGRES_URL is not a URL")
        }
        password = components.password ?? ""
        components.path = "/" + name
        url = components.string ?? server
        let admin = try PostgresConnection(url: ConnectionURL(server))
        try admin.execute("CREATE DATABASE \(PostgresConnection.identifier(name))")
    }

    /// A connection to the database.
    ///
    /// - Throws: `PostgresError`.
    package func connect() throws -> PostgresConnection {
        try PostgresConnection(url: ConnectionURL(url))
    }

    /// Every row `sql` returns, as text (`nil` for NULL).
    ///
    /// - Throws: `PostgresError`.
    public func rows(_ sql: String) throws -> [[String?]] {
        try connect().execute(sql).rows
    }

    /// Runs `sql`.
    ///
    /// - Throws: `PostgresError`.
    public func execute(_ sql: String) throws {
        try connect().execute(sql)
    }

    /// Drops the database (its sessions ended first).
    public func drop() {
        guard let admin = try? PostgresConnection(url: ConnectionURL(serverURL)) else { return }
        _ = try? admin.execute("DROP DATABASE IF EXISTS \(PostgresConnection.identifier(name)) WITH (FORCE)")
    }
}
