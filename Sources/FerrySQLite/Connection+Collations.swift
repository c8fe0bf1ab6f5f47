internal import CSQLite3

extension Connection {
    /// The Swift body of a collating sequence: negative when the first text sorts first, zero when the two are
    /// equal, positive when the second sorts first. It must define a total order (equal texts compare equal, and the
    /// order is transitive), or SQLite's sorts and indexes give unspecified results.
    public typealias Collation = (String, String) -> Int

    /// Registers a collating sequence on this connection, for `ORDER BY column COLLATE name` and comparisons,
    /// replacing any collation with the same name.
    ///
    /// The body runs on whatever thread steps the statement, which is the connection's own executor; it must not use
    /// this connection. Each call decodes both texts from UTF-8.
    ///
    /// ```swift
    /// try connection.createCollation("by_length") { $0.count - $1.count }
    /// try connection.prepare("SELECT name FROM Product ORDER BY name COLLATE by_length")
    /// ```
    ///
    /// - Parameters:
    ///   - name: the collation's name; SQLite matches it case-insensitively.
    ///   - body: the comparison.
    /// - Throws: ``SQLiteError`` when SQLite refuses the registration.
    public func createCollation(_ name: String, _ body: @escaping Collation) throws {
        // Retained here, released by SQLite through `xDestroy` when the collation is replaced or the connection
        // closes.
        let box = Unmanaged.passRetained(CollationBox(body)).toOpaque()
        let status = sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, box,
            { box, leftCount, left, rightCount, right in
                guard let box else { return 0 }
                let collation = Unmanaged<CollationBox>.fromOpaque(box).takeUnretainedValue()
                return Int32(
                    clamping: collation.body(
                        CollationBox.text(left, Int(leftCount)), CollationBox.text(right, Int(rightCount))))
            },
            { box in
                guard let box else { return }
                Unmanaged<CollationBox>.fromOpaque(box).release()
            })
        guard status == SQLITE_OK else {
            // Unlike a function's registration, a failed collation registration does not call `xDestroy`.
            Unmanaged<CollationBox>.fromOpaque(box).release()
            throw error(status, sql: nil)
        }
    }
}

/// Holds a registered collation's Swift body; SQLite keeps it as the collation's user data.
private final class CollationBox {
    let body: Connection.Collation

    init(_ body: @escaping Connection.Collation) {
        self.body = body
    }

    /// The UTF-8 text SQLite hands a collation (not NUL-terminated).
    static func text(_ bytes: UnsafeRawPointer?, _ count: Int) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
