import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// The typed API generated classes use: conversions for every attribute width, typed relationships, typed fetch
/// requests, and identity equality that lets objects live in sets.
@Suite struct TypedAccessTests {
    final class Category: ManagedObject, EntityClass {
        class var entityName: String { "Category" }
    }

    final class Product: ManagedObject, EntityClass {
        class var entityName: String { "Product" }
    }

    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category",
            attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true)
            ]),
        EntityDescription(
            name: "Product",
            attributes: [
                AttributeDescription(name: "sku", type: .string, isOptional: false),
                AttributeDescription(name: "stock", type: .integer16),
                AttributeDescription(name: "sold", type: .integer32),
                AttributeDescription(name: "rating", type: .float),
            ],
            relationships: [
                RelationshipDescription(name: "category", destinationEntity: "Category", inverseName: "products")
            ]),
    ])

    @Test func int16Int32AndFloatReadBackWhatWasSetAndRefuseValuesTheyCannotHold() {
        #expect(Int16(attributeValue: .integer(-32768)) == -32768)
        #expect(Int16(attributeValue: .integer(32768)) == nil)
        #expect(Int32(attributeValue: .integer(2_147_483_647)) == 2_147_483_647)
        #expect(Int32(attributeValue: .integer(2_147_483_648)) == nil)
        #expect(Int16(7).attributeValue == .integer(7))
        #expect(Int32(-7).attributeValue == .integer(-7))
        #expect(Float(attributeValue: Float(0.1).attributeValue) == Float(0.1))
        #expect(Float(attributeValue: .integer(3)) == 3)
        #expect(Float(attributeValue: .string("3")) == nil)
        #expect(Int16(attributeValue: .double(1)) == nil)
    }

    @Test func typedPropertiesRelationshipsAndFetchesWorkAgainstARealStore() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = PersistentContainer(
            name: "Typed", model: Self.model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("typed.sqlite").path))
        container.register(Category.self, forEntity: "Category")
        container.register(Product.self, forEntity: "Product")
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            let tea = Category.insert(into: context)
            tea["name"] = "Tea"
            for (index, sku) in ["B-2", "A-1"].enumerated() {
                let product = Product.insert(into: context)
                product["sku"] = sku
                product["stock"] = Int16(100 + index)
                product["sold"] = Int32(70_000 + index)
                product["rating"] = Float(4.5)
                product.setObject(tea, forKey: "category")
            }
            try context.save()
        }
        try await container.performBackgroundTask { context in
            var request = Product.fetchRequest()
            request.sortDescriptors = [FetchSortDescriptor(key: "sku")]
            request.fetchBatchSize = 1
            let products = try context.fetch(request)
            #expect(products.map { $0["sku"] as String? } == ["A-1", "B-2"])
            #expect(products.map { $0["stock"] as Int16? } == [101, 100])
            #expect(products.map { $0["sold"] as Int32? } == [70_001, 70_000])
            #expect(products.map { $0["rating"] as Float? } == [4.5, 4.5])
            #expect(try context.count(for: request) == 2)
            let category = try #require(products.first?.object(forKey: "category", as: Category.self))
            #expect(category["name"] as String? == "Tea")
            let members = Set(category.objects(forKey: "products", as: Product.self))
            #expect(members == Set(products))
            #expect(members.count == 2)
            // Equality is identity: the same row in one context is one object.
            #expect(products[0] == context.object(with: products[0].objectID))
            #expect(products[0] != products[1])
        }
    }

    @Test func aTypedRequestReadsAndWritesTheRequestItWraps() {
        var request = TypedFetchRequest<Product>(entityName: "Product", predicate: .truePredicate)
        request.fetchLimit = 5
        request.includesSubentities = false
        #expect(request.request.fetchLimit == 5)
        #expect(request.request.includesSubentities == false)
        #expect(request.entityName == "Product")
        #expect(Product.fetchRequest().request == FetchRequest(entityName: "Product"))
    }
}
