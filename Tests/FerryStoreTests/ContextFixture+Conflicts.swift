import FerrySQLite
import Testing

@testable import FerryStore

extension ContextFixture {
    /// Makes an optimistic-locking conflict on Tea: Tea (rank 1) is saved, `second` loads it, another context sets
    /// its rank to 2 and saves; then, on `second`'s queue, `changes` edits the stale object, `second` saves, and
    /// `inspect` is given the stale object, the save's error and the stored (name, rank) row.
    func lockingConflict<Result>(
        in second: ManagedObjectContext, changes: (ManagedObject) -> Void,
        inspect: (_ stale: ManagedObject, _ error: (any Error)?, _ row: [SQLiteValue]) throws -> Result
    ) throws -> Result {
        let seed = context()
        let id = try seed.performAndWait {
            let tea = seed.insertCategory("Tea", rank: 1)
            try seed.save()
            return tea.objectID
        }
        let stale = try second.performAndWait { try second.existingObject(with: id) }
        let first = context()
        try first.performAndWait {
            try first.existingObject(with: id)["rank"] = 2
            try first.save()
        }
        return try second.performAndWait {
            changes(stale)
            var thrown: (any Error)?
            do { try second.save() } catch { thrown = error }
            let row = try #require(try rows("SELECT name, rank FROM Category").first)
            return try inspect(stale, thrown, row)
        }
    }
}
