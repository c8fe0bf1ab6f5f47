import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Optimistic locking on `_opt` under each merge policy (REFERENCE.md §1.3): two contexts change one row.
struct OptimisticLockingTests {
    /// Saves Tea (rank 1, no products); `first` changes rank to 2 and saves; `second`, which read the row
    /// before, changes `changes` and saves under `policy`. Returns the stored (name, rank) and the second save's
    /// error.
    private func conflict(
        _ policy: MergePolicy, changes: @escaping (ManagedObject) -> Void
    ) async throws -> (row: [SQLiteValue], error: (any Error)?, name: String?, rank: Int?) {
        let fixture = try await ContextFixture()
        return try fixture.lockingConflict(in: fixture.context(policy), changes: changes) { stale, thrown, row in
            let name: String? = stale.managedObjectContext == nil ? nil : stale["name"]
            let rank: Int? = stale.managedObjectContext == nil ? nil : stale["rank"]
            return (row, thrown, name, rank)
        }
    }

    @Test func errorPolicyReportsTheVersionsAndWritesNothing() async throws {
        let result = try await conflict(.error) { $0["rank"] = 3 }
        let error = try #require(result.error as? SaveConflictError)
        #expect(error.code == .mergeConflict)
        #expect(error.lockingConflicts.first?.oldVersion == 1)
        #expect(error.lockingConflicts.first?.newVersion == 2)
        #expect(error.lockingConflicts.first?.persistedSnapshot?["rank"] == .some(.integer(2)))
        #expect(result.row == [.text("Tea"), .integer(2)])
    }

    @Test func storeTrumpKeepsTheStoreValueWhereBothChangedAndMergesTheRest() async throws {
        let result = try await conflict(.mergeByPropertyStoreTrump) { stale in
            stale["rank"] = 3
            stale["name"] = "Green tea"
        }
        #expect(result.error == nil)
        #expect(result.row == [.text("Green tea"), .integer(2)])
        #expect(result.rank == 2)
    }

    @Test func objectTrumpKeepsTheMemoryValueWhereBothChanged() async throws {
        let result = try await conflict(.mergeByPropertyObjectTrump) { $0["rank"] = 3 }
        #expect(result.error == nil)
        #expect(result.row == [.text("Tea"), .integer(3)])
        #expect(result.rank == 3)
    }

    @Test func overwriteWritesTheWholeMemoryState() async throws {
        let result = try await conflict(.overwrite) { $0["name"] = "Green tea" }
        #expect(result.error == nil)
        // The memory state had rank 1, read before the other save: it is written back.
        #expect(result.row == [.text("Green tea"), .integer(1)])
    }

    @Test func rollbackDiscardsTheMemoryChanges() async throws {
        let result = try await conflict(.rollback) { $0["name"] = "Green tea" }
        #expect(result.error == nil)
        #expect(result.row == [.text("Tea"), .integer(2)])
        #expect(result.name == "Tea")
    }

    @Test func aRowDeletedInTheStoreDropsTheUpdateUnderStoreTrumpAndFailsUnderObjectTrump() async throws {
        for policy in [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump] {
            let fixture = try await ContextFixture()
            let seed = fixture.context()
            let id = try seed.performAndWait {
                let tea = seed.insertCategory("Tea", rank: 1)
                try seed.save()
                return tea.objectID
            }
            let second = fixture.context(policy)
            let stale = try second.performAndWait { try second.existingObject(with: id) }
            try seed.performAndWait {
                seed.delete(seed.object(with: id))
                try seed.save()
            }
            try second.performAndWait {
                stale["rank"] = 5
                if policy == .mergeByPropertyStoreTrump {
                    try second.save()
                    #expect(stale.managedObjectContext == nil)
                } else {
                    #expect {
                        try second.save()
                    } throws: { error in
                        (error as? SaveConflictError)?.lockingConflicts.first?.newVersion == 0
                    }
                }
            }
            #expect(try fixture.integer("SELECT count(*) FROM Category") == 0)
        }
    }
}
