import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Uniqueness constraints at save under each merge policy, against a stored row and among one save's objects
/// (REFERENCE.md §1.4).
struct ConstraintMergePolicyTests {
    /// Saves `Tea` (rank 1) with one product, then returns a context with `policy` and the stored row's key.
    private func storedTea(_ fixture: ContextFixture) throws -> Int64 {
        let seed = fixture.context()
        try seed.performAndWait {
            let tea = seed.insertCategory("Tea", rank: 1)
            seed.insertProduct("T-1", category: tea)
            try seed.save()
        }
        return try #require(try fixture.integer("SELECT _pk FROM Category WHERE name = 'Tea'"))
    }

    @Test func errorPolicyFailsWithTheConflictListWritesNothingAndKeepsChanges() async throws {
        let fixture = try await ContextFixture()
        let storedKey = try storedTea(fixture)
        let context = fixture.context(.error)
        try context.performAndWait {
            let duplicate = context.insertCategory("Tea", rank: 5)
            context.insertCategory("Coffee")
            #expect {
                try context.save()
            } throws: { error in
                guard let error = error as? SaveConflictError else { return false }
                let conflict = error.constraintConflicts.first
                return error.code == .constraintConflict && error.code.rawValue == 133021
                    && error.constraintConflicts.count == 1 && conflict?.entityName == "Category"
                    && conflict?.constraint == ["name"] && conflict?.constraintValues["name"] == .some(.string("Tea"))
                    && conflict?.databaseObjectID?.primaryKey == storedKey
                    && conflict?.conflictingObjectIDs == [duplicate.objectID]
                    && !error.description.contains("Tea")
            }
            #expect(context.hasChanges)
            #expect(duplicate.isInserted)
            // Fixing the offending object lets the same context save.
            duplicate["name"] = "Rooibos"
            try context.save()
        }
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 3)
    }

    @Test func storeTrumpKeepsTheStoredRowAndDiscardsTheNewObject() async throws {
        let fixture = try await ContextFixture()
        let storedKey = try storedTea(fixture)
        let context = fixture.context(.mergeByPropertyStoreTrump)
        try context.performAndWait {
            let duplicate = context.insertCategory("Tea", rank: 5)
            let product = context.insertProduct("T-2", category: duplicate)
            try context.save()
            #expect(duplicate.managedObjectContext == nil)
            // The new object's members now belong to the stored row.
            #expect(product.objectID(forKey: "category")?.primaryKey == storedKey)
        }
        #expect(
            try fixture.rows("SELECT _pk, name, rank FROM Category") == [
                [.integer(storedKey), .text("Tea"), .integer(1)]
            ])
        #expect(try fixture.integer("SELECT count(*) FROM Product WHERE category = \(storedKey)") == 2)
    }

    @Test func objectTrumpCopiesEveryValueOfTheNewObjectOntoTheStoredRow() async throws {
        let fixture = try await ContextFixture()
        let storedKey = try storedTea(fixture)
        let context = fixture.context(.mergeByPropertyObjectTrump)
        try context.performAndWait {
            let duplicate = context.insertObject(entityName: "Category")
            duplicate["name"] = "Tea"  // rank keeps its default, 0, which is copied too (REFERENCE.md §1.4)
            try context.save()
            #expect(duplicate.managedObjectContext == nil)
        }
        #expect(
            try fixture.rows("SELECT _pk, name, rank, _opt FROM Category")
                == [[.integer(storedKey), .text("Tea"), .integer(0), .integer(2)]])
        #expect(try fixture.integer("SELECT count(*) FROM Product WHERE category = \(storedKey)") == 1)
    }

    @Test func overwriteReplacesTheStoredRowWithANewOneAndMovesItsMembers() async throws {
        let fixture = try await ContextFixture()
        let storedKey = try storedTea(fixture)
        let context = fixture.context(.overwrite)
        let newKey = try context.performAndWait {
            let duplicate = context.insertCategory("Tea", rank: 5)
            try context.save()
            return duplicate.objectID.primaryKey
        }
        #expect(newKey != storedKey)
        #expect(
            try fixture.rows("SELECT _pk, name, rank FROM Category") == [[.integer(newKey), .text("Tea"), .integer(5)]])
        #expect(try fixture.integer("SELECT category FROM Product WHERE sku = 'T-1'") == newKey)
    }

    @Test func rollbackKeepsTheStoredRowUnchanged() async throws {
        let fixture = try await ContextFixture()
        let storedKey = try storedTea(fixture)
        let context = fixture.context(.rollback)
        try context.performAndWait {
            let duplicate = context.insertCategory("Tea", rank: 5)
            context.insertCategory("Coffee")
            try context.save()
            #expect(duplicate.managedObjectContext == nil)
        }
        #expect(
            try fixture.rows("SELECT _pk, name, rank FROM Category ORDER BY _pk")
                == [
                    [.integer(storedKey), .text("Tea"), .integer(1)],
                    [.integer(storedKey + 1), .text("Coffee"), .integer(0)],
                ])
    }

    // MARK: Objects of one save sharing a key

    @Test func storeTrumpAmongNewObjectsKeepsTheFirstAndDiscardsTheSecond() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context(.mergeByPropertyStoreTrump)
        try context.performAndWait {
            let first = context.insertCategory("Tea", rank: 1)
            let second = context.insertCategory("Tea", rank: 2)
            context.insertProduct("T-1", category: second)
            try context.save()
            #expect(first.managedObjectContext === context)
            #expect(second.managedObjectContext == nil)
            #expect(first.objects(forKey: "products").count == 1)
        }
        #expect(try fixture.rows("SELECT name, rank FROM Category") == [[.text("Tea"), .integer(1)]])
        #expect(try fixture.integer("SELECT count(*) FROM Product WHERE category IS NOT NULL") == 1)
    }

    @Test func objectTrumpAmongNewObjectsKeepsTheFirstWithTheLastValues() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context(.mergeByPropertyObjectTrump)
        try context.performAndWait {
            let first = context.insertCategory("Tea", rank: 1)
            context.insertCategory("Tea", rank: 2)
            context.insertCategory("Tea", rank: 3)
            try context.save()
            #expect(first["rank"] == 3)
        }
        #expect(try fixture.rows("SELECT _pk, name, rank FROM Category") == [[.integer(1), .text("Tea"), .integer(3)]])
    }

    @Test func errorPolicyAmongNewObjectsListsThemAll() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context(.error)
        context.performAndWait {
            let first = context.insertCategory("Tea")
            let second = context.insertCategory("Tea")
            #expect {
                try context.save()
            } throws: { error in
                let conflict = (error as? SaveConflictError)?.constraintConflicts.first
                return conflict?.databaseObjectID == nil
                    && conflict?.conflictingObjectIDs == [first.objectID, second.objectID]
            }
            #expect(context.insertedObjects.count == 2)
        }
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 0)
    }

    @Test func overwriteAndRollbackAmongNewObjectsLeaveOneRow() async throws {
        for policy in [MergePolicy.overwrite, .rollback] {
            let fixture = try await ContextFixture()
            let context = fixture.context(policy)
            try context.performAndWait {
                context.insertCategory("Tea", rank: 1)
                context.insertCategory("Tea", rank: 2)
                try context.save()
            }
            // Overwrite: the newest in-memory state wins; rollback: the first object's.
            let expectedRank: Int64 = policy == .overwrite ? 2 : 1
            #expect(try fixture.rows("SELECT name, rank FROM Category") == [[.text("Tea"), .integer(expectedRank)]])
        }
    }

    // MARK: Compound constraints

    @Test func aCompoundConstraintComparesAllItsAttributesTogether() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context(.error)
        try context.performAndWait {
            for (first, last) in [("Ada", "Lovelace"), ("Ada", "Byron"), ("Alan", "Lovelace")] {
                let person = context.insertObject(entityName: "Person")
                person["firstName"] = first
                person["lastName"] = last
            }
            try context.save()
            let again = context.insertObject(entityName: "Person")
            again["firstName"] = "Ada"
            again["lastName"] = "Lovelace"
            #expect {
                try context.save()
            } throws: { error in
                let conflict = (error as? SaveConflictError)?.constraintConflicts.first
                return conflict?.constraint == ["firstName", "lastName"]
                    && conflict?.constraintValues["lastName"] == .some(.string("Lovelace"))
            }
            // A nil part never collides (SQLite's UNIQUE lets NULLs repeat).
            again.setValue(nil, forKey: "lastName")
            let another = context.insertObject(entityName: "Person")
            another["firstName"] = "Ada"
            try context.save()
        }
        #expect(try fixture.integer("SELECT count(*) FROM Person") == 5)
    }

    @Test func aKeyMovedAwayInTheSameSaveIsFreeForANewObject() async throws {
        let fixture = try await ContextFixture()
        _ = try storedTea(fixture)
        let context = fixture.context(.error)
        try context.performAndWait {
            let tea = try #require(try context.all("Category", sortedBy: "name").first)
            tea["name"] = "Old tea"
            context.insertCategory("Tea", rank: 9)
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT name, rank FROM Category ORDER BY name") == [
                [.text("Old tea"), .integer(1)], [.text("Tea"), .integer(9)],
            ])
    }
    /// An inserted object's row version after the save is 1, whether or not a merge policy dropped another insert
    /// of the same save: a later change saves against `_opt` = 1 under the error policy, which fails on any other.
    @Test func objectsInsertedBesideADroppedInsertSaveAgainstTheirNewRowVersion() async throws {
        let fixture = try await ContextFixture()
        _ = try storedTea(fixture)
        for folds in [false, true] {
            let context = fixture.context(.mergeByPropertyStoreTrump)
            let name = folds ? "Green" : "Black"
            try context.performAndWait {
                // With `folds`, the duplicate of the stored Tea is dropped by the save (store-trump).
                if folds { context.insertCategory("Tea", rank: 5) }
                let kept = context.insertCategory(name, rank: 2)
                try context.save()
                #expect(!kept.hasChanges)
                #expect(!kept.objectID.isTemporaryID)
                context.mergePolicy = .error
                kept["rank"] = 3
                try context.save()
            }
            #expect(try fixture.integer("SELECT rank FROM Category WHERE name = '\(name)'") == 3)
            #expect(try fixture.integer("SELECT _opt FROM Category WHERE name = '\(name)'") == 2)
        }
        #expect(try fixture.integer("SELECT rank FROM Category WHERE name = 'Tea'") == 1)
    }
}
