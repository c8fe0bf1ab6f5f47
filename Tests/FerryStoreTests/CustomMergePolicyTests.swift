import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// A merge policy of one's own: it adds the two ranks of a locking conflict, and resolves constraint conflicts by
/// entity (categories keep the stored row, people take the incoming values), or refuses categories.
struct AddingRanksPolicy: CustomMergePolicy {
    var categories: MergePolicy = .mergeByPropertyStoreTrump

    func resolve(_ conflict: OptimisticLockingConflict) -> LockingConflictResolution {
        guard case .integer(let mine)?? = conflict.objectSnapshot["rank"],
            case .integer(let theirs)?? = conflict.persistedSnapshot?["rank"]
        else { return .policy(.error) }
        return .values(["rank": .integer(mine + theirs)])
    }

    func resolve(_ conflict: ConstraintConflict) -> MergePolicy {
        conflict.entityName == "Category" ? categories : .mergeByPropertyObjectTrump
    }
}

struct CustomMergePolicyTests {
    /// Saves Tea (rank 1); another context sets its rank to 2 and saves; then `second`, which read Tea before,
    /// runs `changes` and saves under `policy`. Returns the second save's error and the stored name and rank.
    private func lockingConflict(
        _ policy: any CustomMergePolicy, changes: @escaping (ManagedObject) -> Void
    ) async throws -> (error: (any Error)?, row: [SQLiteValue], rank: Int?) {
        let fixture = try await ContextFixture()
        let second = fixture.context(.error)
        second.customMergePolicy = policy
        return try fixture.lockingConflict(in: second, changes: changes) { stale, thrown, row in
            (thrown, row, stale["rank"])
        }
    }

    @Test func aLockingConflictIsResolvedWithTheValuesThePolicyComputes() async throws {
        let result = try await lockingConflict(AddingRanksPolicy()) { stale in
            stale["rank"] = 5
            stale["name"] = "Green tea"
        }
        #expect(result.error == nil, "the custom policy takes over from the context's error policy")
        #expect(result.row == [.text("Green tea"), .integer(7)], "5 in memory + 2 in the store; the name is kept")
        #expect(result.rank == 7, "the object reads what was written")
    }

    @Test func aLockingConflictThePolicyLeavesToErrorFailsTheSave() async throws {
        let result = try await lockingConflict(AddingRanksPolicy()) { stale in
            stale.setValue(nil, forKey: "rank")
        }
        let error = try #require(result.error as? SaveConflictError)
        #expect(error.code == .mergeConflict)
        #expect(error.lockingConflicts.count == 1)
        #expect(result.row == [.text("Tea"), .integer(2)], "nothing written")
    }

    /// Saves Tea (rank 1) and Ada Lovelace (ada@old); then a context with `policy` inserts both keys again, with
    /// rank 7 and ada@new, and saves. Returns the save's error and the stored rows.
    private func constraintConflicts(
        _ policy: any CustomMergePolicy
    ) async throws -> (error: (any Error)?, categories: [[SQLiteValue]], people: [[SQLiteValue]]) {
        let fixture = try await ContextFixture()
        let seed = fixture.context()
        try seed.performAndWait {
            seed.insertCategory("Tea", rank: 1)
            let ada = seed.insertObject(entityName: "Person")
            ada["firstName"] = "Ada"
            ada["lastName"] = "Lovelace"
            ada["email"] = "ada@old"
            try seed.save()
        }
        let context = fixture.context(.error)
        context.customMergePolicy = policy
        let error = context.performAndWait { () -> (any Error)? in
            context.insertCategory("Tea", rank: 7)
            let ada = context.insertObject(entityName: "Person")
            ada["firstName"] = "Ada"
            ada["lastName"] = "Lovelace"
            ada["email"] = "ada@new"
            do { try context.save() } catch { return error }
            return nil
        }
        return (
            error, try fixture.rows("SELECT name, rank FROM Category"),
            try fixture.rows("SELECT firstName, email FROM Person")
        )
    }

    @Test func eachConstraintConflictIsResolvedWithThePolicyChosenForIt() async throws {
        let result = try await constraintConflicts(AddingRanksPolicy())
        #expect(result.error == nil)
        #expect(result.categories == [[.text("Tea"), .integer(1)]], "store-trump for categories")
        #expect(result.people == [[.text("Ada"), .text("ada@new")]], "object-trump for people")
    }

    @Test func constraintConflictsThePolicyLeavesToErrorFailTheSaveAndAreListed() async throws {
        let result = try await constraintConflicts(AddingRanksPolicy(categories: .error))
        let error = try #require(result.error as? SaveConflictError)
        #expect(error.code == .constraintConflict)
        #expect(error.constraintConflicts.map(\.entityName) == ["Category"], "only the refused conflicts")
        #expect(result.categories == [[.text("Tea"), .integer(1)]])
        #expect(result.people == [[.text("Ada"), .text("ada@old")]], "nothing written")
    }
}
