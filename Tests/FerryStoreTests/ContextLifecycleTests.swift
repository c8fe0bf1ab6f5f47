import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// A subclass registered for Product that records its callbacks.
final class TrackedProduct: ManagedObject {
    nonisolated(unsafe) static var events: [String] = []

    var sku: String? {
        get { self["sku"] }
        set { self["sku"] = newValue }
    }

    override func awakeFromInsert() {
        Self.events.append("awakeFromInsert")
        self["name"] = "unnamed"
    }
    override func awakeFromFetch() { Self.events.append("awakeFromFetch \(sku ?? "")") }
    override func willSave() {
        Self.events.append("willSave \(sku ?? "")")
        // Callbacks may fill values before validation; only change what differs.
        if value(forKey: "price") == nil { setPrimitiveValue(.decimal(1), forKey: "price") }
    }
    override func didSave() { Self.events.append("didSave \(sku ?? "")") }
    override func prepareForDeletion() { Self.events.append("prepareForDeletion \(sku ?? "")") }
    override func validateForInsert() throws {
        if sku?.hasPrefix("X") == true {
            throw ValidationError(.managedObjectValidation, message: "skus starting with X are retired", key: "sku")
        }
    }
}

/// Subclasses, lifecycle callbacks, validation at save, child contexts, the concurrency check.
@Suite(.serialized) struct ContextLifecycleTests {
    @Test func callbacksRunInCoreDataOrder() async throws {
        TrackedProduct.events = []
        let fixture = try await ContextFixture { $0.register(TrackedProduct.self, forEntity: "Product") }
        let context = fixture.context()
        try context.performAndWait {
            let product = context.insert(TrackedProduct.self, entityName: "Product")
            product.sku = "A-1"
            try context.save()
            #expect(product["price"] == Decimal(1))
            context.reset()
            let fetched = try #require(try context.all("Product", sortedBy: "sku").first as? TrackedProduct)
            #expect(fetched["name"] == "unnamed")
            context.delete(fetched)
            try context.save()
        }
        #expect(
            TrackedProduct.events == [
                "awakeFromInsert", "willSave A-1", "didSave A-1", "awakeFromFetch A-1", "prepareForDeletion A-1",
                "willSave A-1", "didSave A-1",
            ])
        #expect(try fixture.integer("SELECT count(*) FROM Product") == 0)
    }

    @Test func validationGathersEveryFailureAndWritesNothing() async throws {
        let fixture = try await ContextFixture { $0.register(TrackedProduct.self, forEntity: "Product") }
        let context = fixture.context()
        try context.performAndWait {
            let category = context.insertObject(entityName: "Category")
            category["name"] = String(repeating: "x", count: 21)
            let product = context.insert(TrackedProduct.self, entityName: "Product")
            product.sku = "X-1"
            product["price"] = Decimal(-1)
            let unnamed = context.insertObject(entityName: "Category")
            #expect {
                try context.save()
            } throws: { error in
                guard let error = error as? ValidationError, error.code == .multipleErrors else { return false }
                let codes = error.detailedErrors.map(\.code.rawValue).sorted()
                return codes == [1550, 1570, 1620, 1660]
                    && error.detailedErrors.contains { $0.key == "sku" && $0.entity == "Product" }
            }
            #expect(context.insertedObjects.count == 3)
            unnamed["name"] = "Tea"
            category["name"] = "Coffee"
            product.sku = "A-1"
            product["price"] = Decimal(2)
            try context.save()
        }
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 2)
    }

    @Test func aChildSavesIntoItsParentAndTheParentToTheStore() async throws {
        let fixture = try await ContextFixture()
        let parent = fixture.context(.error)
        let child = parent.newChildContext(name: "editor")
        let id = try child.performAndWait {
            let tea = child.insertCategory("Tea", rank: 3)
            try child.save()
            #expect(!child.hasChanges)
            return tea.objectID
        }
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 0)
        try parent.performAndWait {
            #expect(parent.hasChanges)
            #expect(parent.registeredObject(for: id)?["rank"] == 3)
            try parent.save()
        }
        #expect(try fixture.rows("SELECT name, rank FROM Category") == [[.text("Tea"), .integer(3)]])
        // A child faults objects in through its parent's state.
        let reader = parent.newChildContext()
        try parent.performAndWait {
            let tea = try #require(try parent.all("Category", sortedBy: "name").first)
            tea["rank"] = 8
            reader.performAndWait {
                #expect(reader.object(with: tea.objectID)["rank"] == 8)
            }
        }
    }

    @Test func fetchBatchSizeLoadsOneBatchAtATime() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            for index in 0..<2_500 { context.insertCategory(String(format: "c%05d", index), rank: index) }
            try context.save()
            context.reset()
            var request = FetchRequest(
                entityName: "Category", sortDescriptors: [FetchSortDescriptor(key: "rank", ascending: false)])
            request.fetchBatchSize = 1_000
            let results = try context.fetch(request)
            #expect(results.count == 2_500)
            #expect(context.registeredObjects.isEmpty)
            var ranks: [Int] = []
            var mostRegistered = 0
            for object in results {
                ranks.append(object["rank"] ?? -1)
                mostRegistered = max(mostRegistered, context.registeredObjects.count)
            }
            #expect(ranks == Array((0..<2_500).reversed()))
            // Only the batch being walked is alive.
            #expect(mostRegistered <= 1_000)
        }
    }

    @Test func predicatesWithCountAndSubstitutionFetchObjects() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea")
            let coffee = context.insertCategory("Café")
            context.insertProduct("T-1", category: tea)
            context.insertProduct("T-2", category: tea)
            context.insertProduct("C-1", category: coffee)
            try context.save()
            let busy = try context.fetch(
                FetchRequest(entityName: "Category", predicate: try FetchPredicate(format: "products.@count > 1")))
            #expect(busy.map { $0["name"] as String? } == ["Tea"])
            let named = try context.fetch(
                FetchRequest(
                    entityName: "Category",
                    predicate: try FetchPredicate(format: "%K BEGINSWITH[cd] %@", "name", "cafe")))
            #expect(named.map { $0["name"] as String? } == ["Café"])
            let listed = try context.fetch(
                FetchRequest(
                    entityName: "Product", predicate: try FetchPredicate(format: "sku IN %@", ["T-1", "C-1"]),
                    sortDescriptors: [FetchSortDescriptor(key: "sku")]))
            #expect(listed.map { $0["sku"] as String? } == ["C-1", "T-1"])
        }
    }

    @Test func usingAContextOffItsQueueStopsTheProgram() async throws {
        await #expect(processExitsWith: .failure) {
            setenv("FERRY_CONCURRENCY_DEBUG", "1", 1)
            let fixture = try await ContextFixture()
            _ = fixture.context().insertObject(entityName: "Category")
        }
    }
}
