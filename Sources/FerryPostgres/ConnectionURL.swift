internal import CLibPQ
import Foundation

/// A PostgreSQL connection string as libpq takes it, a URL (`postgresql://user:password@host:5432/db?sslmode=…`)
/// or `key=value` pairs, with the password it holds (if any) known, so that it can be masked wherever the string
/// or a message appears.
///
/// Credentials follow libpq's own rules: the URL's password, else `PGPASSWORD`, else the service file named by
/// `PGSERVICE`, else `~/.pgpass`. Ferry passes the string through and never reads those itself, except to mask.
///
/// ```swift
/// let url = ConnectionURL("postgresql://ferry:secret@localhost/catalog")
/// print(url.masked)  // postgresql://ferry:***@localhost/catalog
/// ```
package struct ConnectionURL: Sendable, Hashable, CustomStringConvertible {
    /// The string given, passed to libpq as it is.
    package let text: String
    /// The password the string holds, or `PGPASSWORD`'s, for masking.
    package let password: String?
    /// Every spelling of the password that may appear in text: as libpq reads it, and percent-encoded in a URL.
    package let secrets: [String]

    /// The connection string `text`.
    package init(_ text: String) {
        self.text = text
        let environment = ProcessInfo.processInfo.environment["PGPASSWORD"]
        password = Self.password(in: text) ?? environment.flatMap { $0.isEmpty ? nil : $0 }
        var secrets = password.map { [$0] } ?? []
        if let encoded = URLComponents(string: text)?.percentEncodedPassword, !encoded.isEmpty,
            !secrets.contains(encoded)
        {
            secrets.append(encoded)
        }
        // Longest first, so that a password containing another spelling is masked whole.
        self.secrets = secrets.sorted { $0.count > $1.count }
    }

    /// The string with its password replaced by `***`: the only form that appears in messages and reports.
    package var masked: String { mask(text) }

    /// `message` with every spelling of the password replaced by `***`.
    package func mask(_ message: String) -> String {
        secrets.reduce(message) { $0.replacingAll($1, with: "***") }
    }

    package var description: String { masked }

    /// The password libpq reads from `text` (percent-decoded in a URL), found with libpq's own parser.
    private static func password(in text: String) -> String? {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &error) else {
            if let error { PQfreemem(error) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val {
                let password = String(cString: value)
                return password.isEmpty ? nil : password
            }
            option += 1
        }
        return nil
    }
}
