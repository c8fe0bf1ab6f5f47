package import FerrySQLite

/// A cursor over the rows of a dictionary fetch in a ``ReadSnapshot``: step with ``next()`` and read the current
/// row's columns straight from ``statement``, in the storage encodings of ``StoreSchema``, without copying.
///
/// ```swift
/// let rows = try snapshot.rows(of: request)
/// while try rows.next() {
///     rows.statement.withTextBytes(at: 0) { bytes in write(bytes) }
/// }
/// ```
package final class SnapshotRows {
    /// One result column: the key path fetched and its attribute's type.
    package struct Column: Sendable, Hashable {
        package var key: String
        package var type: AttributeType
    }

    /// The result columns, in order.
    package let columns: [Column]
    /// The statement, positioned on the current row after ``next()`` returned `true`.
    package let statement: Statement
    private let entityName: String
    private let path: String

    init(columns: [Column], statement: Statement, entityName: String, path: String) {
        self.columns = columns
        self.statement = statement
        self.entityName = entityName
        self.path = path
    }

    /// Moves to the next row; `false` when there is none.
    ///
    /// - Throws: ``StoreError`` `.sqlite` when SQLite fails.
    package func next() throws -> Bool {
        do {
            return try statement.step()
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "reading \(entityName) failed", path: path, underlying: error)
        }
    }
}
