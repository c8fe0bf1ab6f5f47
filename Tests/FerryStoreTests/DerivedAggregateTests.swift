import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// `@avg`, `@min` and `@max` derivations, recomputed in full by the store's triggers (see
/// `StoreSchema+Derivations.swift`): through context saves, batch requests and cascades, checked by reading the
/// file on a connection of its own.
struct DerivedAggregateTests {
    /// `Category` averages, and takes the extremes of, its products' decimal prices (stored as text, so `10.25`
    /// sorts before `9.5` unless compared as numbers), integer quantities, double weights, skus and dates; `Brand`
    /// cascades to its products; `Tag` does the same over a many-to-many (join table `Product_tags`).
    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category",
            attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "averagePrice", type: .decimal, derivation: "@avg products.price"),
                AttributeDescription(name: "averageQuantity", type: .double, derivation: "products.quantity.@avg"),
                AttributeDescription(name: "lowestPrice", type: .decimal, derivation: "@min products.price"),
                AttributeDescription(name: "highestPrice", type: .decimal, derivation: "products.price.@max"),
                AttributeDescription(name: "leastQuantity", type: .integer32, derivation: "@min products.quantity"),
                AttributeDescription(name: "heaviest", type: .double, derivation: "@max products.weight"),
                AttributeDescription(name: "firstSku", type: .string, derivation: "products.sku.@min"),
                AttributeDescription(name: "lastAdded", type: .date, derivation: "@max products.addedAt"),
            ],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true)
            ],
            uniquenessConstraints: [["name"]]),
        EntityDescription(
            name: "Brand",
            attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "brand", isToMany: true,
                    deleteRule: .cascade)
            ]),
        EntityDescription(
            name: "Product",
            attributes: [
                AttributeDescription(name: "sku", type: .string, isOptional: false),
                AttributeDescription(name: "price", type: .decimal),
                AttributeDescription(name: "quantity", type: .integer32),
                AttributeDescription(name: "weight", type: .double),
                AttributeDescription(name: "addedAt", type: .date),
            ],
            relationships: [
                RelationshipDescription(name: "category", destinationEntity: "Category", inverseName: "products"),
                RelationshipDescription(name: "brand", destinationEntity: "Brand", inverseName: "products"),
                RelationshipDescription(
                    name: "tags", destinationEntity: "Tag", inverseName: "products", isToMany: true),
            ],
            uniquenessConstraints: [["sku"]]),
        EntityDescription(
            name: "Tag",
            attributes: [
                AttributeDescription(name: "label", type: .string),
                AttributeDescription(name: "averagePrice", type: .decimal, derivation: "@avg products.price"),
                AttributeDescription(name: "meanPrice", type: .double, derivation: "products.price.@avg"),
                AttributeDescription(name: "mostQuantity", type: .integer32, derivation: "@max products.quantity"),
                AttributeDescription(name: "lastSku", type: .string, derivation: "@max products.sku"),
            ],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "tags", isToMany: true)
            ]),
    ])

    /// When A-1 was added, in seconds since 1970.
    static let day1 = 1_700_000_000.0
    /// When A-2 was added, a day later.
    static let day2 = 1_700_086_400.0

    /// Coffee's row when it holds A-1 alone, and when it holds A-2 alone.
    static let onlyA1: [SQLiteValue] = [
        .text("9.5"), .real(2), .text("9.5"), .text("9.5"), .integer(2), .real(1.5), .text("A-1"), .real(day1),
    ]
    static let onlyA2: [SQLiteValue] = [
        .text("10.25"), .real(3), .text("10.25"), .text("10.25"), .integer(3), .real(2.25), .text("A-2"), .real(day2),
    ]
    /// A category's row with no products.
    static let empty = [SQLiteValue](repeating: .null, count: 8)

    private func fixture() async throws -> ContextFixture {
        try await ContextFixture(model: Self.model)
    }

    /// The derived columns of the category `name`.
    private func aggregates(_ fixture: ContextFixture, _ name: String) throws -> [SQLiteValue] {
        try fixture.rows(
            "SELECT averagePrice, averageQuantity, lowestPrice, highestPrice, leastQuantity, heaviest, firstSku, "
                + "lastAdded FROM Category WHERE name = '\(name)'"
        ).first ?? []
    }

    /// The derived columns of the tag `label`.
    private func tagAggregates(_ fixture: ContextFixture, _ label: String) throws -> [SQLiteValue] {
        try fixture.rows(
            "SELECT averagePrice, meanPrice, mostQuantity, lastSku FROM Tag WHERE label = '\(label)'"
        ).first ?? []
    }

    /// Saves Coffee (A-1: 9.5, 2 of 1.5 kg, brand Acme, day 1; A-2: 10.25, 3 of 2.25 kg, brand Bolt, day 2) and
    /// Tea (no products).
    @discardableResult
    private func seed(_ context: ManagedObjectContext) throws -> (coffee: ObjectID, tea: ObjectID) {
        try context.performAndWait {
            let coffee = context.insertObject(entityName: "Category")
            coffee["name"] = "Coffee"
            let tea = context.insertObject(entityName: "Category")
            tea["name"] = "Tea"
            for (sku, price, quantity, weight, brand, day) in [
                ("A-1", "9.5", 2, 1.5, "Acme", Self.day1), ("A-2", "10.25", 3, 2.25, "Bolt", Self.day2),
            ] {
                let product = context.insertObject(entityName: "Product")
                product["sku"] = sku
                product["price"] = Decimal(string: price)
                product["quantity"] = quantity
                product["weight"] = weight
                product["addedAt"] = Date(timeIntervalSince1970: day)
                product.setObject(coffee, forKey: "category")
                let owner = context.insertObject(entityName: "Brand")
                owner["name"] = brand
                product.setObject(owner, forKey: "brand")
            }
            try context.save()
            return (coffee.objectID, tea.objectID)
        }
    }

    // MARK: Context saves

    @Test func insertsGiveTheAverageAndExtremesAndAnEmptyToManyGivesNil() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        let (coffee, tea) = try seed(context)
        #expect(
            try aggregates(fixture, "Coffee") == [
                .text("9.875"), .real(2.5), .text("9.5"), .text("10.25"), .integer(2), .real(2.25), .text("A-1"),
                .real(Self.day2),
            ])
        #expect(try aggregates(fixture, "Tea") == Self.empty)

        context.performAndWait {
            let coffee = context.object(with: coffee)
            let tea = context.object(with: tea)
            context.refresh(coffee, mergeChanges: false)
            context.refresh(tea, mergeChanges: false)
            #expect(coffee["lowestPrice"] == Decimal(string: "9.5"))
            #expect(coffee["highestPrice"] == Decimal(string: "10.25"))
            #expect(coffee["lastAdded"] == Date(timeIntervalSince1970: Self.day2))
            #expect(tea["averagePrice"] as Decimal? == nil)
            #expect(tea["leastQuantity"] as Int64? == nil)
            #expect(tea["firstSku"] as String? == nil)
        }
    }

    @Test func changingTheAggregatedAttributeRecomputesAndNilValuesAreLeftOut() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        try seed(context)
        try context.performAndWait {
            let products = try context.all("Product", sortedBy: "sku")
            products[0]["price"] = Decimal(12)
            products[1]["quantity"] = 7
            products[1]["weight"] = nil as Double?
            try context.save()
        }
        #expect(
            try aggregates(fixture, "Coffee") == [
                .text("11.125"), .real(4.5), .text("10.25"), .text("12"), .integer(2), .real(1.5), .text("A-1"),
                .real(Self.day2),
            ])

        // Exact: in doubles, (0.1 + 0.2) / 2 is 0.15000000000000002.
        try context.performAndWait {
            let products = try context.all("Product", sortedBy: "sku")
            products[0]["price"] = Decimal(string: "0.1")
            products[1]["price"] = Decimal(string: "0.2")
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT averagePrice, lowestPrice, highestPrice FROM Category WHERE name = 'Coffee'") == [
                [.text("0.15"), .text("0.1"), .text("0.2")]
            ])
    }

    @Test func movingAProductToAnotherCategoryRecomputesBoth() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        let (_, tea) = try seed(context)
        try context.performAndWait {
            try context.all("Product", sortedBy: "sku")[1].setObject(context.object(with: tea), forKey: "category")
            try context.save()
        }
        #expect(try aggregates(fixture, "Coffee") == Self.onlyA1)
        #expect(try aggregates(fixture, "Tea") == Self.onlyA2)
    }

    @Test func deletingProductsThroughAContextRecomputesUntilTheToManyIsEmpty() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        try seed(context)
        try context.performAndWait {
            context.delete(try context.all("Product", sortedBy: "sku")[1])
            try context.save()
        }
        #expect(try aggregates(fixture, "Coffee") == Self.onlyA1)

        try context.performAndWait {
            context.delete(try context.all("Product", sortedBy: "sku")[0])
            try context.save()
        }
        #expect(try aggregates(fixture, "Coffee") == Self.empty)
    }

    // MARK: Batch requests and cascades

    @Test func aBatchInsertAndAnUpsertRecomputeAndDecimalsCompareAsNumbers() async throws {
        let fixture = try await fixture()
        let (coffee, _) = try seed(fixture.context())
        let store = fixture.container.persistentStore
        // As text, "100.25" < "9.5" and "0-1" < "A-1": only the first is wrong when compared as text.
        var rows = PackedRows(columns: ["sku", "price", "quantity", "addedAt", "category"])
        rows.appendText("0-1")
        rows.appendText("100.25")
        rows.appendInteger(1)
        rows.appendReal(1_800_000_000)
        rows.appendInteger(coffee.primaryKey)
        rows.endRow()
        _ = try await store.execute(BatchInsertRequest(entityName: "Product", packedRows: rows), mergePolicy: .error)
        #expect(
            try aggregates(fixture, "Coffee") == [
                .text("40"), .real(2), .text("9.5"), .text("100.25"), .integer(1), .real(2.25), .text("0-1"),
                .real(1_800_000_000),
            ])

        // The upsert updates A-1 in place: (0.5 + 10.25 + 100.25) / 3.
        let upsert = BatchInsertRequest(
            entityName: "Product", objects: [["sku": .string("A-1"), "price": .decimal(0.5)]])
        _ = try await store.execute(upsert, mergePolicy: .mergeByPropertyObjectTrump)
        #expect(
            try fixture.rows("SELECT averagePrice, lowestPrice, highestPrice FROM Category WHERE name = 'Coffee'") == [
                [.text("37"), .text("0.5"), .text("100.25")]
            ])
        #expect(try aggregates(fixture, "Tea") == Self.empty)
    }

    @Test func aBatchUpdateOfTheAggregatedAttributesRecomputes() async throws {
        let fixture = try await fixture()
        try seed(fixture.context())
        _ = try await fixture.container.persistentStore.execute(
            BatchUpdateRequest(
                entityName: "Product",
                propertiesToUpdate: [
                    "price": .keyPath("price") * .constant(.decimal(2)), "quantity": .constant(.integer(10)),
                    "weight": .constant(nil),
                ]))
        #expect(
            try aggregates(fixture, "Coffee") == [
                .text("19.75"), .real(10), .text("19"), .text("20.5"), .integer(10), .null, .text("A-1"),
                .real(Self.day2),
            ])
    }

    @Test func aBatchDeleteOfAProductRecomputes() async throws {
        let fixture = try await fixture()
        try seed(fixture.context())
        let result = try await fixture.container.persistentStore.execute(
            BatchDeleteRequest(
                fetchRequest: FetchRequest(
                    entityName: "Product", predicate: try FetchPredicate(format: "sku == 'A-1'")),
                resultType: .count))
        #expect(result.count == 1)
        #expect(try aggregates(fixture, "Coffee") == Self.onlyA2)
    }

    @Test func productsDeletedByACascadeFromTheirBrandAreLeftOut() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        try seed(context)
        let brands = try context.performAndWait { try context.all("Brand", sortedBy: "name").map(\.objectID) }
        let result = try await fixture.container.persistentStore.execute(
            BatchDeleteRequest(objectIDs: [brands[1]], resultType: .count))
        #expect(result.count == 1 && result.cascadedCount == 1)
        #expect(try aggregates(fixture, "Coffee") == Self.onlyA1)

        // The same through a context's save.
        try context.performAndWait {
            context.delete(context.object(with: brands[0]))
            try context.save()
        }
        #expect(try fixture.integer("SELECT count(*) FROM Product") == 0)
        #expect(try aggregates(fixture, "Coffee") == Self.empty)
    }

    // MARK: Many-to-many

    @Test func aManyToManyFollowsMembershipValuesAndDeletes() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        try seed(context)
        try context.performAndWait {
            let products = try context.all("Product", sortedBy: "sku")
            for (label, members) in [("hot", products), ("new", [products[0]])] {
                let tag = context.insertObject(entityName: "Tag")
                tag["label"] = label
                for product in members { tag.add(product, toKey: "products") }
            }
            let empty = context.insertObject(entityName: "Tag")
            empty["label"] = "none"
            try context.save()
        }
        #expect(try tagAggregates(fixture, "hot") == [.text("9.875"), .real(9.875), .integer(3), .text("A-2")])
        #expect(try tagAggregates(fixture, "new") == [.text("9.5"), .real(9.5), .integer(2), .text("A-1")])
        #expect(try tagAggregates(fixture, "none") == [.null, .null, .null, .null])

        try context.performAndWait {
            let products = try context.all("Product", sortedBy: "sku")
            products[0]["price"] = Decimal(string: "0.1")
            products[1]["price"] = Decimal(string: "0.2")
            products[1]["quantity"] = 1
            try context.save()
        }
        #expect(try tagAggregates(fixture, "hot") == [.text("0.15"), .real(0.15), .integer(2), .text("A-2")])

        try context.performAndWait {
            let tag = try context.all("Tag", sortedBy: "label")[0]
            tag.remove(try context.all("Product", sortedBy: "sku")[1], fromKey: "products")
            try context.save()
        }
        #expect(try tagAggregates(fixture, "hot") == [.text("0.1"), .real(0.1), .integer(2), .text("A-1")])

        _ = try await fixture.container.persistentStore.execute(
            BatchDeleteRequest(
                fetchRequest: FetchRequest(
                    entityName: "Product", predicate: try FetchPredicate(format: "sku == 'A-1'")),
                resultType: .count))
        #expect(try tagAggregates(fixture, "hot") == [.null, .null, .null, .null])
        #expect(try tagAggregates(fixture, "new") == [.null, .null, .null, .null])
    }
}
