package import FerrySQLite
import Synchronization

/// Hands out primary keys for new rows, per table, so that an object can get its permanent ID before its row is
/// written (Core Data's `Z_PRIMARYKEY`).
///
/// A reservation starts above both the table's largest `_pk` and every key reserved before, so keys are never
/// given twice within this process, and gaps appear when reserved keys are never saved (as in Core Data).
/// Departure from Core Data: reservations live in memory, not in the file; a second process writing the same
/// table between a reservation and the save that uses it can take those keys, and that save then fails with a
/// constraint error rather than writing over its row.
package final class PrimaryKeyAllocator: Sendable {
    private let reserved = Mutex<[String: Int64]>([:])

    package init() {}

    /// Reserves `count` consecutive keys in `table` and returns the first; call it on the store's writer.
    ///
    /// - Throws: ``SQLiteError`` when the table cannot be read.
    package func reserve(_ count: Int, in table: String, on connection: Connection) throws -> Int64 {
        let statement = try connection.cachedStatement(
            "SELECT coalesce(max(\(SQL.identifier("_pk"))), 0) FROM \(SQL.identifier(table))")
        defer { statement.reset() }
        let storedMaximum = try statement.step() ? statement.int64(at: 0) : 0
        return self.reserved.withLock { reserved in
            let first = max(reserved[table] ?? 0, storedMaximum) + 1
            reserved[table] = first + Int64(count) - 1
            return first
        }
    }

    /// The reservations made so far, to hand back to ``restore(_:)`` when a transaction that reserved keys rolls
    /// back (call both on the store's writer, inside that transaction).
    package func reservations() -> [String: Int64] {
        reserved.withLock { $0 }
    }

    /// Forgets the reservations made since `reservations` was taken.
    package func restore(_ reservations: [String: Int64]) {
        reserved.withLock { $0 = reservations }
    }
}
