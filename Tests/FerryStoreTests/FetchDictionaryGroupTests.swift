import Foundation
import Testing

@testable import FerryStore

/// Dictionary fetches that return to-one relationships (as object IDs) and filter groups with `havingPredicate`,
/// on the catalog of ``PredicateCollectionTests/Catalog``, saved.
struct FetchDictionaryGroupTests {
    /// Runs `body` on a saved catalog.
    static func withCatalog(
        _ body: (ManagedObjectContext, PredicateCollectionTests.Catalog) throws -> Void
    ) async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let catalog = PredicateCollectionTests.Catalog(in: context)
            try context.save()
            try body(context, catalog)
        }
    }

    static func uri(_ object: ManagedObject?) -> AttributeValue? {
        object.map { .uri($0.objectID.uriRepresentation) }
    }

    @Test func aToOneRelationshipIsFetchedAsItsObjectID() async throws {
        try await Self.withCatalog { context, catalog in
            var request = FetchRequest(entityName: "Product", resultType: .dictionary)
            request.propertiesToFetch = ["sku", "category"]
            request.sortDescriptors = [FetchSortDescriptor(key: "sku")]
            let rows = try context.fetchDictionaries(request)
            #expect(
                rows.map { $0["category"] ?? nil }
                    == ["Tea", "Coffee", "Cocoa", "Tea", "Coffee", nil].map {
                        Self.uri($0.flatMap { catalog.objects[$0] })
                    })
            #expect(rows[5].keys.contains("category"), "a product without a category has the key, with nil")
            // The value reads back as the object's ID, and a predicate takes it as it is.
            guard case .uri(let url)?? = rows[0]["category"] else {
                Issue.record("no URI for P1's category")
                return
            }
            #expect(ObjectID(uriRepresentation: url) == catalog.objects["Tea"]?.objectID)
            var same = FetchRequest(entityName: "Product", sortDescriptors: [FetchSortDescriptor(key: "sku")])
            same.predicate = try FetchPredicate(format: "category == %@", .uri(url))
            #expect(try context.fetch(same).map { $0["sku"] as String? } == ["P1", "P4"])
        }
    }

    @Test func aToOneKeyPathThroughAnotherToOneIsFetchedToo() async throws {
        try await Self.withCatalog { context, catalog in
            var request = FetchRequest(entityName: "Product", resultType: .dictionary)
            request.predicate = try FetchPredicate(format: "sku == 'P2'")
            request.propertiesToFetch = ["category.name", "category"]
            let rows = try context.fetchDictionaries(request)
            #expect(rows == [["category.name": .string("Coffee"), "category": Self.uri(catalog.objects["Coffee"])]])
        }
    }

    @Test func groupsByAToOneRelationshipFilteredByHaving() async throws {
        try await Self.withCatalog { context, catalog in
            var request = FetchRequest(entityName: "Product", resultType: .dictionary)
            request.propertiesToGroupBy = ["category"]
            request.aggregates = [
                FetchAggregate(name: "count", function: .count, keyPath: "SELF"),
                FetchAggregate(name: "total", function: .sum, keyPath: "price"),
            ]
            // Groups come in the order of their keys: no category first, then by primary key. Whole rows are
            // compared, so a group is known by its category, and a nil category is a key with nil, not a missing key.
            let tea = try #require(catalog.objects["Tea"])
            let groups: [[String: AttributeValue?]] = [
                ["category": nil, "count": .integer(1), "total": .decimal(Decimal(475) / 100)],
                ["category": Self.uri(catalog.objects["Cocoa"]), "count": .integer(1), "total": nil],
                ["category": Self.uri(catalog.objects["Coffee"]), "count": .integer(2), "total": .decimal(3)],
                ["category": Self.uri(tea), "count": .integer(2), "total": .decimal(Decimal(145) / 10)],
            ]
            let all = try context.fetchDictionaries(request)
            #expect(all == groups)
            #expect(all.allSatisfy { $0.keys.contains("category") })

            request.havingPredicate = try FetchPredicate(format: "total > 5")
            #expect(try context.fetchDictionaries(request) == [groups[3]])

            request.havingPredicate = try FetchPredicate(format: "count >= 2 OR total == nil")
            #expect(try context.fetchDictionaries(request) == [groups[1], groups[2], groups[3]])

            request.havingPredicate = try FetchPredicate(
                format: "category != %@ AND category != nil AND total < 3.5", .object(tea))
            #expect(try context.fetchDictionaries(request) == [groups[2]])

            // Cocoa's one product has no price: NOT of a comparison with nil holds, as in Core Data. The group
            // without a category also counts 1, but its total (4.75) is between 3 and 20.
            request.havingPredicate = try FetchPredicate(format: "NOT (total BETWEEN {3, 20})")
            #expect(try context.fetchDictionaries(request) == [groups[1]])
        }
    }

    @Test func havingGroupsByAnAttributeWithADecimalMinimum() async throws {
        try await Self.withCatalog { context, _ in
            var request = FetchRequest(entityName: "Product", resultType: .dictionary)
            request.predicate = try FetchPredicate(format: "category != nil")
            request.propertiesToGroupBy = ["category.name"]
            request.aggregates = [FetchAggregate(name: "cheapest", function: .min, keyPath: "price")]
            request.havingPredicate = try FetchPredicate(format: "cheapest < 4 AND category.name BEGINSWITH 'Co'")
            request.sortDescriptors = [FetchSortDescriptor(key: "category.name")]
            let rows = try context.fetchDictionaries(request)
            #expect(rows == [["category.name": .string("Coffee"), "cheapest": .decimal(1)]])
        }
    }

    @Test func aHavingPredicateNeedsGroupsAndNamesOnlyGroupsOrAggregates() async throws {
        try await Self.withCatalog { context, _ in
            var request = FetchRequest(entityName: "Product", resultType: .dictionary)
            request.propertiesToFetch = ["sku"]
            request.havingPredicate = try FetchPredicate(format: "sku == 'P1'")
            let ungrouped = #expect(throws: FetchRequestError.self) { try context.fetchDictionaries(request) }
            #expect(ungrouped?.message.contains("no propertiesToGroupBy") == true)
            request.propertiesToFetch = nil
            request.propertiesToGroupBy = ["category"]
            request.havingPredicate = try FetchPredicate(format: "price > 1")
            let unknown = #expect(throws: FetchRequestError.self) { try context.fetchDictionaries(request) }
            #expect(unknown?.message.contains("'price'") == true)
        }
    }

    @Test func aToOneToASubEntityHierarchyNamesTheObjectsOwnEntity() async throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Employee", parentEntity: "Person"),
            EntityDescription(
                name: "Team", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [RelationshipDescription(name: "lead", destinationEntity: "Person")]),
        ])
        let fixture = try await ContextFixture(model: model)
        let context = fixture.context()
        try context.performAndWait {
            let ada = context.insertObject(entityName: "Person")
            let grace = context.insertObject(entityName: "Employee")
            for (title, lead) in [("A", ada), ("B", grace)] {
                let team = context.insertObject(entityName: "Team")
                team["title"] = title
                team.setObject(lead, forKey: "lead")
            }
            try context.save()
            var request = FetchRequest(entityName: "Team", resultType: .dictionary)
            request.propertiesToFetch = ["title", "lead"]
            request.sortDescriptors = [FetchSortDescriptor(key: "title")]
            let leads = try context.fetchDictionaries(request).map { row -> ObjectID? in
                guard case .uri(let url)?? = row["lead"] else { return nil }
                return ObjectID(uriRepresentation: url)
            }
            #expect(leads == [ada.objectID, grace.objectID])
            #expect(leads.map { $0?.entityName } == ["Person", "Employee"])
        }
    }
}
