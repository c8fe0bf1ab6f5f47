import Foundation
import Testing

@testable import FerryStore

/// Fetches and counts that include a context's unsaved changes (`includesPendingChanges`, on by default as in Core
/// Data), and the store-only fetch when it is off.
struct FetchPendingChangesTests {
    /// The `name` of each object, in order.
    static func names(_ objects: some Sequence<ManagedObject>) -> [String?] {
        objects.map { $0["name"] as String? }
    }

    /// A request for categories matching `format`, sorted by name.
    static func categories(_ format: String? = nil, sortedBy key: String = "name") throws -> FetchRequest {
        var request = FetchRequest(entityName: "Category", sortDescriptors: [FetchSortDescriptor(key: key)])
        request.predicate = try format.map { try FetchPredicate(format: $0) }
        return request
    }

    @Test func unsavedInsertsThatMatchAreFetchedAndCounted() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Coffee", rank: 2)
            context.insertCategory("Tea", rank: 5)
            try context.save()
            context.insertCategory("Cocoa", rank: 3)
            context.insertCategory("Mate", rank: 1)
            let request = try Self.categories("rank >= 2")
            #expect(Self.names(try context.fetch(request)) == ["Cocoa", "Coffee", "Tea"])
            #expect(try context.count(for: request) == 3)
            let ids = try context.fetchObjectIDs(request)
            #expect(ids.map(\.isTemporaryID) == [true, false, false])
        }
    }

    @Test func unsavedUpdatesAreTestedOnTheirCurrentValues() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            for (name, rank) in [("Coffee", 2), ("Tea", 5), ("Cocoa", 3), ("Mate", 1)] {
                context.insertCategory(name, rank: rank)
            }
            try context.save()
            context.reset()
            let all = try context.all("Category", sortedBy: "name")
            all[0]["rank"] = 9  // Cocoa: still matches
            all[1]["rank"] = 0  // Coffee: stops matching
            all[2]["rank"] = 4  // Mate: starts matching
            let request = try Self.categories("rank >= 2", sortedBy: "rank")
            #expect(Self.names(try context.fetch(request)) == ["Mate", "Tea", "Cocoa"])
            #expect(try context.count(for: request) == 3)
            var limited = request
            limited.fetchOffset = 1
            limited.fetchLimit = 1
            #expect(Self.names(try context.fetch(limited)) == ["Tea"])
            #expect(try context.count(for: limited) == 1)
        }
    }

    @Test func withoutPendingChangesTheStoreAloneAnswers() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Coffee", rank: 2)
            context.insertCategory("Tea", rank: 5)
            try context.save()
            let coffee = try #require(try context.all("Category", sortedBy: "name").first)
            coffee["rank"] = 0
            context.insertCategory("Cocoa", rank: 3)
            var request = try Self.categories("rank >= 2")
            request.includesPendingChanges = false
            // The insert is not seen, the update is judged on the stored rank.
            #expect(Self.names(try context.fetch(request)) == ["Coffee", "Tea"])
            #expect(try context.count(for: request) == 2)
            request.includesPendingChanges = true
            #expect(Self.names(try context.fetch(request)) == ["Cocoa", "Tea"])
        }
    }

    @Test func aChildSeesItsParentsUnsavedChanges() async throws {
        let fixture = try await ContextFixture()
        let parent = fixture.context()
        let child = parent.newChildContext()
        try parent.performAndWait {
            parent.insertCategory("Coffee", rank: 2)
            parent.insertCategory("Tea", rank: 5)
            try parent.save()
            let tea = try #require(try parent.all("Category", sortedBy: "name").last)
            tea["rank"] = 1
            parent.insertCategory("Cocoa", rank: 7)
            try child.performAndWait {
                let request = try Self.categories("rank >= 2")
                #expect(Self.names(try child.fetch(request)) == ["Cocoa", "Coffee"])
                #expect(try child.count(for: request) == 2)
                // The child's own change wins over the parent's.
                let coffee = try #require(try child.fetch(request).last)
                coffee["rank"] = 0
                #expect(Self.names(try child.fetch(request)) == ["Cocoa"])
            }
        }
    }

    @Test func fetchBatchSizeWalksPendingResultsBatchByBatch() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            for index in 0..<5 { context.insertCategory("Saved \(index)", rank: index) }
            try context.save()
            for index in 0..<4 { context.insertCategory("New \(index)", rank: 10 + index) }
            var request = try Self.categories(sortedBy: "rank")
            request.fetchBatchSize = 3
            let fetched = try context.fetch(request)
            #expect(fetched.count == 9)
            #expect(Self.names(fetched).suffix(2) == ["New 2", "New 3"])
            #expect(fetched.objectIDs.filter(\.isTemporaryID).count == 4)
        }
    }

    /// Predicates the in-memory evaluation must answer as the store's SQL does: each is asked of objects inserted
    /// and not saved, then of the same objects once saved.
    /// A price past a double's 15 significant digits: equal to 12345678901234567890.25 as doubles, not as decimals.
    static let longPrice = Decimal(string: "12345678901234567890.5", locale: Locale(identifier: "en_US_POSIX"))

    @Test(arguments: [
        "name BEGINSWITH 'Ca'", "name ENDSWITH[c] 'É'", "name CONTAINS[cd] 'e'", "name LIKE 'C*e'",
        "name LIKE[c] '*A*'", "name MATCHES '[A-Z][a-z]+'", "name ==[cd] 'cafe'", "name < 'Cocoa'",
        "price BETWEEN {2, 4.5}", "price IN {1, 2, 10}", "NOT (price > 2)", "price != 2", "category.name == 'Tea'",
        "category == nil", "NOT (category.name == 'Tea')", "price > 4.5", "price == nil OR price < 3",
        "name IN {'Tea', nil}", "sku != 'P1' AND name == nil", "category.rank >= 0 AND category.name != 'Tea'",
        "category.products.@count >= 2", "ANY tags.label ==[c] 'GREEN'", "NONE tags.label == 'green'",
        "ALL tags.label BEGINSWITH 'g'", "'green' IN tags.label",
        "price == CAST('12345678901234567890.5', 'NSDecimalNumber')",
        "price IN {CAST('12345678901234567890.25', 'NSDecimalNumber'), 2}",
        "price != CAST('12345678901234567890.25', 'NSDecimalNumber') AND price > 5",
    ])
    func theInMemoryAnswerIsTheStores(format: String) async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 2)
            let coffee = context.insertCategory("Coffee", rank: 0)
            let green = context.insertObject(entityName: "Tag")
            green["label"] = "green"
            let black = context.insertObject(entityName: "Tag")
            black["label"] = "black"
            let rows: [(String, String?, Decimal?, ManagedObject?, [ManagedObject])] = [
                ("P1", "Café", 4.5, tea, [green]), ("P2", "Cake", 2, coffee, [black, green]),
                ("P3", "cocoa", nil, nil, []), ("P4", "Chai tea", 10, tea, [black]), ("P5", nil, 1, coffee, []),
                ("P6", "Tea", 4.75, nil, [green]), ("P7", "Kombucha", Self.longPrice, nil, []),
            ]
            for (sku, name, price, category, tags) in rows {
                let product = context.insertProduct(sku, name: name, price: price, category: category)
                for tag in tags { product.add(tag, toKey: "tags") }
            }
            var request = FetchRequest(entityName: "Product", sortDescriptors: [FetchSortDescriptor(key: "sku")])
            request.predicate = try FetchPredicate(format: format)
            let inMemory = try context.fetch(request).map { $0["sku"] as String? }
            let counted = try context.count(for: request)
            try context.save()
            let stored = try context.fetch(request).map { $0["sku"] as String? }
            #expect(inMemory == stored, "\(format)")
            #expect(counted == stored.count)
            // The answers differ between formats: a predicate matching nothing or everything proves little.
            #expect(!stored.isEmpty && stored.count < rows.count, "\(format) matches \(stored)")
        }
    }
}
