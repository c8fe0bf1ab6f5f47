import Foundation
import Testing

@testable import FerryStore
import FerrySQLite

/// Behaviours where a context must do what Core Data does, each found diverging once (issue 20): ordered moves,
/// inverse to-many bookkeeping, count rules checked from the member side, counts that agree with fetches,
/// inaccessible faults, batch deletes refused by Deny, and child saves that push only what the child changed.
struct ContextFidelityTests {
    /// `Playlist` (`name`; `tracks` ordered to-many) and `Track` (`title`; `playlist` to-one), and `Team` (`name`;
    /// `players` to-many holding 2 to 3 when not empty) and `Player` (`name`; `team` to-one).
    static func rosterModel() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(
                name: "Playlist", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "tracks", destinationEntity: "Track", inverseName: "playlist", isToMany: true,
                        isOrdered: true)
                ]),
            EntityDescription(
                name: "Track", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [
                    RelationshipDescription(name: "playlist", destinationEntity: "Playlist", inverseName: "tracks")
                ]),
            EntityDescription(
                name: "Team", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "players", destinationEntity: "Player", inverseName: "team", isToMany: true,
                        minCount: 2, maxCount: 3)
                ]),
            EntityDescription(
                name: "Player", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "team", destinationEntity: "Team", inverseName: "players")]
            ),
        ])
    }

    /// The object of `entity` whose `key` is `value`, fetched.
    static func one(_ entity: String, _ key: String, _ value: String, in context: ManagedObjectContext) throws
        -> ManagedObject
    {
        var request = FetchRequest(entityName: entity)
        request.predicate = try FetchPredicate(format: "%K == %@", .value(.string(key)), .value(.string(value)))
        return try #require(try context.fetch(request).first)
    }

    // MARK: Ordered to-many

    @Test func anObjectMovedIntoAnUnloadedOrderedToManyIsStoredAtItsEnd() async throws {
        let fixture = try await ContextFixture(model: Self.rosterModel())
        let context = fixture.context()
        try context.performAndWait {
            for (name, titles) in [("A", ["a1", "a2"]), ("B", ["b1", "b2"])] {
                let playlist = context.insertObject(entityName: "Playlist")
                playlist["name"] = name
                for title in titles {
                    let track = context.insertObject(entityName: "Track")
                    track["title"] = title
                    playlist.add(track, toKey: "tracks")
                }
            }
            try context.save()
            context.reset()
            let a2 = try Self.one("Track", "title", "a2", in: context)
            let b = try Self.one("Playlist", "name", "B", in: context)
            #expect(b.hasFault(forRelationshipNamed: "tracks"))
            a2.setObject(b, forKey: "playlist")
            #expect(b.objects(forKey: "tracks").map { $0["title"] as String? } == ["b1", "b2", "a2"])
            try context.save()
            context.reset()
            let stored = try Self.one("Playlist", "name", "B", in: context)
            #expect(stored.objects(forKey: "tracks").map { $0["title"] as String? } == ["b1", "b2", "a2"])
            let a = try Self.one("Playlist", "name", "A", in: context)
            #expect(a.objects(forKey: "tracks").map { $0["title"] as String? } == ["a1"])
        }
    }

    // MARK: Inverse to-many bookkeeping

    @Test func settingAToOneMarksTheOldAndNewOwnersOfAnUnloadedToManyUpdated() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea")
            let coffee = context.insertCategory("Coffee")
            context.insertProduct("T-1", category: tea)
            try context.save()
            let savedCoffeeID = coffee.objectID
            context.reset()
            // The new owner is a fault, the old one loaded without its products.
            let moved = try Self.one("Product", "sku", "T-1", in: context)
            let oldOwner = try Self.one("Category", "name", "Tea", in: context)
            let newOwner = context.object(with: savedCoffeeID)
            #expect(newOwner.isFault)
            #expect(oldOwner.hasFault(forRelationshipNamed: "products"))
            moved.setObject(newOwner, forKey: "category")
            #expect(oldOwner.isUpdated)
            #expect(newOwner.isUpdated)
            #expect(oldOwner.changedKeys == ["products"])
            #expect(newOwner.changedKeys == ["products"])
            #expect(Set(context.updatedObjects.map(\.objectID)) == [moved.objectID, oldOwner.objectID, savedCoffeeID])
        }
    }

    @Test func settingAToOneMarksTheOldAndNewOwnersOfALoadedToManyUpdated() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea")
            let coffee = context.insertCategory("Coffee")
            let product = context.insertProduct("T-1", category: tea)
            try context.save()
            #expect(tea.objects(forKey: "products").count == 1)
            #expect(coffee.objects(forKey: "products").isEmpty)
            product.setObject(coffee, forKey: "category")
            #expect(tea.isUpdated && coffee.isUpdated)
            #expect(tea.changedKeys == ["products"])
            #expect(coffee.changedKeys == ["products"])
            #expect(coffee.objectIDs(forKey: "products") == [product.objectID])
            try context.save()
            #expect(!tea.isUpdated && !coffee.isUpdated)
        }
        // The owners' rows were saved as updates: their versions moved on, as Core Data's do.
        #expect(try fixture.rows("SELECT name, _opt FROM Category ORDER BY name") == [
            [.text("Coffee"), .integer(2)], [.text("Tea"), .integer(2)],
        ])
    }

    // MARK: Count rules from the member side

    /// Saves team `name` with `players` players, and resets the context.
    private static func saveTeam(_ name: String, players: Int, in context: ManagedObjectContext) throws {
        let team = context.insertObject(entityName: "Team")
        team["name"] = name
        for index in 1...players {
            let player = context.insertObject(entityName: "Player")
            player["name"] = "\(name)\(index)"
            player.setObject(team, forKey: "team")
        }
        try context.save()
        context.reset()
    }

    @Test func removingAMemberBelowTheMinimumThroughItsToOneFailsTheSave() async throws {
        let fixture = try await ContextFixture(model: Self.rosterModel())
        let context = fixture.context()
        try context.performAndWait {
            try Self.saveTeam("Red", players: 2, in: context)
            let player = try Self.one("Player", "name", "Red1", in: context)
            player.setObject(nil, forKey: "team")
            #expect {
                try context.save()
            } throws: { error in
                guard let error = error as? ValidationError else { return false }
                return error.code == .relationshipLacksMinimumCount && error.entity == "Team" && error.key == "players"
            }
        }
        #expect(try fixture.integer("SELECT count(*) FROM Player WHERE team IS NOT NULL") == 2)
    }

    @Test func addingMembersPastTheMaximumThroughTheirToOneFailsTheSave() async throws {
        let fixture = try await ContextFixture(model: Self.rosterModel())
        let context = fixture.context()
        try context.performAndWait {
            try Self.saveTeam("Blue", players: 3, in: context)
            let team = try Self.one("Team", "name", "Blue", in: context)
            let player = context.insertObject(entityName: "Player")
            player["name"] = "Blue4"
            player.setObject(team, forKey: "team")
            #expect {
                try context.save()
            } throws: { error in
                guard let error = error as? ValidationError else { return false }
                return error.code == .relationshipExceedsMaximumCount && error.entity == "Team"
                    && error.key == "players"
            }
        }
        #expect(try fixture.integer("SELECT count(*) FROM Player") == 3)
    }

    @Test func deletingAMemberBelowTheMinimumFailsTheSave() async throws {
        let fixture = try await ContextFixture(model: Self.rosterModel())
        let context = fixture.context()
        try context.performAndWait {
            try Self.saveTeam("Green", players: 2, in: context)
            let team = try Self.one("Team", "name", "Green", in: context)
            context.delete(try Self.one("Player", "name", "Green1", in: context))
            context.processPendingChanges()
            #expect(team.isUpdated)
            #expect(team.changedKeys == ["players"])
            #expect {
                try context.save()
            } throws: { error in
                (error as? ValidationError)?.code == .relationshipLacksMinimumCount
            }
        }
        #expect(try fixture.integer("SELECT count(*) FROM Player") == 2)
    }

    // MARK: Counting

    @Test func countLeavesOutObjectsDeletedAndNotSavedAsFetchDoes() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Tea", rank: 1)
            context.insertCategory("Coffee", rank: 2)
            context.insertCategory("Cocoa", rank: 3)
            try context.save()
            context.delete(try Self.one("Category", "name", "Coffee", in: context))
            let all = FetchRequest(entityName: "Category")
            #expect(try context.fetch(all).count == 2)
            #expect(try context.count(for: all) == 2)
            var ranked = FetchRequest(entityName: "Category")
            ranked.predicate = try FetchPredicate(format: "rank >= 2")
            #expect(try context.fetch(ranked).count == 1)
            #expect(try context.count(for: ranked) == 1)
        }
    }

    // MARK: Inaccessible faults

    @Test func firingAFaultWhoseRowWasBatchDeletedMarksItDeleted() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        let id = try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 4)
            try context.save()
            return tea.objectID
        }
        context.performAndWait { context.reset() }
        _ = try await fixture.container.persistentStore.execute(BatchDeleteRequest(objectIDs: [id]))
        context.performAndWait {
            let tea = context.object(with: id)
            #expect(tea.isFault)
            #expect(tea["name"] as String? == nil)
            #expect(tea["rank"] as Int? == nil)
            #expect(tea.isDeleted)
            #expect(!tea.isFault)
        }
    }

    // MARK: Batch delete and Deny

    @Test func aBatchDeleteRefusedByADenyRuleFailsWithCoreDatasCode() async throws {
        let fixture = try await ContextFixture(model: ContextFixture.catalogModel(productsDeleteRule: .deny))
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea")
            context.insertProduct("T-1", category: tea)
            try context.save()
        }
        await #expect {
            try await fixture.container.persistentStore.execute(
                BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Category")))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .batchDeleteDenied && error.code.coreDataCode == 134060
        }
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 1)
    }

    // MARK: Child saves

    @Test func aChildSaveKeepsTheParentsUnsavedChangeToAnotherAttribute() async throws {
        let fixture = try await ContextFixture()
        let parent = fixture.context()
        let child = parent.newChildContext()
        let id = try parent.performAndWait {
            let tea = parent.insertCategory("Tea", rank: 1)
            try parent.save()
            return tea.objectID
        }
        try child.performAndWait {
            let tea = child.object(with: id)
            #expect(tea["rank"] as Int? == 1)
            // The parent changes another attribute after the child read the object.
            parent.performAndWait { parent.object(with: id)["rank"] = 5 }
            tea["name"] = "Green tea"
            try child.save()
        }
        try parent.performAndWait {
            let tea = parent.object(with: id)
            #expect(tea["name"] as String? == "Green tea")
            #expect(tea["rank"] as Int? == 5)
            #expect(tea.changedKeys == ["name", "rank"])
            try parent.save()
        }
        #expect(try fixture.rows("SELECT name, rank FROM Category") == [[.text("Green tea"), .integer(5)]])
    }
}
