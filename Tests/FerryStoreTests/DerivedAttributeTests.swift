import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Derived attributes maintained by the store's triggers (REFERENCE.md §8.2): through context saves, batch requests
/// and plain SQL, checked by reading the file on a connection of its own.
struct DerivedAttributeTests {
    /// `Category` derives a count, three sums (integer, exact decimal, double), canonical/lower/upper names and a
    /// last-saved stamp; `Product` copies its category's name; `Tag` counts and sums the products of a
    /// many-to-many (whose join table `Product_tags` has the product in `source`, so the tag side is `destination`).
    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category",
            attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(
                    name: "productCount", type: .integer64, defaultValue: .integer(0), derivation: "@count products"),
                AttributeDescription(name: "stock", type: .integer64, derivation: "@sum products.quantity"),
                AttributeDescription(name: "value", type: .decimal, derivation: "products.price.@sum"),
                AttributeDescription(name: "weight", type: .double, derivation: "@sum products.weight"),
                AttributeDescription(name: "searchName", type: .string, derivation: "canonical:(name)"),
                AttributeDescription(name: "lowerName", type: .string, derivation: "lowercase:name"),
                AttributeDescription(name: "upperName", type: .string, derivation: "uppercase:(name)"),
                AttributeDescription(name: "changedAt", type: .date, derivation: "now()"),
            ],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true)
            ],
            uniquenessConstraints: [["name"]]),
        EntityDescription(
            name: "Product",
            attributes: [
                AttributeDescription(name: "sku", type: .string, isOptional: false),
                AttributeDescription(name: "price", type: .decimal),
                AttributeDescription(name: "quantity", type: .integer32, defaultValue: .integer(0)),
                AttributeDescription(name: "weight", type: .double),
                AttributeDescription(name: "categoryName", type: .string, derivation: "category.name"),
                AttributeDescription(name: "searchCategory", type: .string, derivation: "canonical:(category.name)"),
            ],
            relationships: [
                RelationshipDescription(name: "category", destinationEntity: "Category", inverseName: "products"),
                RelationshipDescription(
                    name: "tags", destinationEntity: "Tag", inverseName: "products", isToMany: true),
            ],
            uniquenessConstraints: [["sku"]]),
        EntityDescription(
            name: "Tag",
            attributes: [
                AttributeDescription(name: "label", type: .string),
                AttributeDescription(name: "productCount", type: .integer64, derivation: "@count products"),
                AttributeDescription(name: "totalPrice", type: .decimal, derivation: "@sum products.price"),
            ],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "tags", isToMany: true)
            ]),
    ])

    private func fixture() async throws -> ContextFixture {
        try await ContextFixture(model: Self.model)
    }

    /// `name, productCount, stock, value, weight` of every category, by name.
    private func totals(_ fixture: ContextFixture) throws -> [[SQLiteValue]] {
        try fixture.rows("SELECT name, productCount, stock, value, weight FROM Category ORDER BY name")
    }

    /// Runs `sql` on the store's own connection (which has the store's SQL functions).
    private func execute(_ fixture: ContextFixture, _ sql: String) throws {
        try fixture.container.persistentStore.writer.sync { try $0.execute(sql) }
    }

    /// Saves Coffee (products A-1: 0.1 × 2, 1.5 kg; A-2: 0.2 × 3, 2.25 kg) and Tea (no products).
    @discardableResult
    private func seed(_ context: ManagedObjectContext) throws -> (coffee: ObjectID, tea: ObjectID) {
        try context.performAndWait {
            let coffee = context.category("Coffee")
            let tea = context.category("Tea")
            context.product("A-1", price: "0.1", quantity: 2, weight: 1.5, in: coffee)
            context.product("A-2", price: "0.2", quantity: 3, weight: 2.25, in: coffee)
            try context.save()
            return (coffee.objectID, tea.objectID)
        }
    }

    // MARK: Context saves

    @Test func countAndSumsFollowInsertsUpdatesAndDeletesOfAContextSave() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        try seed(context)
        #expect(
            try totals(fixture) == [
                [.text("Coffee"), .integer(2), .integer(5), .text("0.3"), .real(3.75)],
                [.text("Tea"), .integer(0), .integer(0), .text("0"), .real(0)],
            ])

        try context.performAndWait {
            let products = try context.all("Product", sortedBy: "sku")
            context.delete(products[0])
            products[1]["price"] = Decimal(string: "1.25")
            products[1]["quantity"] = 7
            try context.save()
        }
        #expect(
            try totals(fixture) == [
                [.text("Coffee"), .integer(1), .integer(7), .text("1.25"), .real(2.25)],
                [.text("Tea"), .integer(0), .integer(0), .text("0"), .real(0)],
            ])
    }

    @Test func movingAProductToAnotherCategoryChangesTheCountOfBoth() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        let (_, tea) = try seed(context)
        try context.performAndWait {
            let products = try context.all("Product", sortedBy: "sku")
            products[1].setObject(context.object(with: tea), forKey: "category")
            try context.save()
        }
        #expect(
            try totals(fixture) == [
                [.text("Coffee"), .integer(1), .integer(2), .text("0.1"), .real(1.5)],
                [.text("Tea"), .integer(1), .integer(3), .text("0.2"), .real(2.25)],
            ])
        #expect(
            try fixture.rows("SELECT sku, categoryName FROM Product ORDER BY sku") == [
                [.text("A-1"), .text("Coffee")], [.text("A-2"), .text("Tea")],
            ])
    }

    @Test func aCopiedKeyPathFollowsARenameOfTheCategoryAndClearsWithTheKey() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        let (coffee, _) = try seed(context)
        try context.performAndWait {
            context.object(with: coffee)["name"] = "Café Noir"
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT sku, categoryName, searchCategory FROM Product ORDER BY sku") == [
                [.text("A-1"), .text("Café Noir"), .text("cafe noir")],
                [.text("A-2"), .text("Café Noir"), .text("cafe noir")],
            ])

        try context.performAndWait {
            try context.all("Product", sortedBy: "sku")[0].setObject(nil, forKey: "category")
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT sku, categoryName, searchCategory FROM Product ORDER BY sku") == [
                [.text("A-1"), .null, .null], [.text("A-2"), .text("Café Noir"), .text("cafe noir")],
            ])
    }

    @Test func canonicalFoldsCaseAndDiacriticsAndLowercaseAndUppercaseKeepAccents() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        try context.performAndWait {
            context.category("Café")
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT searchName, lowerName, upperName FROM Category") == [
                [.text("cafe"), .text("café"), .text("CAFÉ")]
            ])

        try context.performAndWait {
            try context.all("Category", sortedBy: "name")[0]["name"] = "ÉCOLE Ünïcode"
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT searchName, lowerName, upperName FROM Category") == [
                [.text("ecole unicode"), .text("école ünïcode"), .text("ÉCOLE ÜNÏCODE")]
            ])
    }

    @Test func nowStampsTheInsertAndEverySaveButNotAChangeOfADerivedValue() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        let before = Date().timeIntervalSince1970
        let (coffee, _) = try seed(context)
        let after = Date().timeIntervalSince1970
        let stamp = { try fixture.rows("SELECT changedAt FROM Category WHERE _pk = \(coffee.primaryKey)")[0][0].real }
        let inserted = try #require(try stamp())
        #expect(inserted >= before - 0.002 && inserted <= after + 0.002)

        // A product added by plain SQL changes the count, a derived value: not a save of the category.
        try await Task.sleep(for: .milliseconds(20))
        try execute(
            fixture,
            "INSERT INTO Product (_pk, _ent, sku, category) VALUES (100, \(entityID(fixture, "Product")), 'S-1', "
                + "\(coffee.primaryKey))")
        #expect(try fixture.integer("SELECT productCount FROM Category WHERE _pk = \(coffee.primaryKey)") == 3)
        #expect(try stamp() == inserted)

        try context.performAndWait {
            context.object(with: coffee)["name"] = "Coffee beans"
            try context.save()
        }
        let saved = try #require(try stamp())
        #expect(saved > inserted + 0.01)
        #expect(saved <= Date().timeIntervalSince1970 + 0.002)
    }

    @Test func savedObjectsHoldTheirDerivedValuesRightAfterTheSave() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        try context.performAndWait {
            let coffee = context.category("Coffee")
            let product = context.product("A-1", price: "0.1", quantity: 2, weight: 1, in: coffee)
            try context.save()
            // As Core Data does since iOS 14: the save refreshes the derived values of the objects it saved.
            #expect(coffee["productCount"] == Int64(1))
            #expect(coffee["searchName"] == "coffee")
            #expect(coffee["value"] == Decimal(string: "0.1"))
            #expect(!coffee.hasChanges && coffee.changedKeys.isEmpty)
            // A member added from its side updates the owner, whose count is current after the save too.
            #expect(product["categoryName"] == "Coffee")
            context.product("A-2", price: "0.2", quantity: 1, weight: 1, in: coffee)
            try context.save()
            #expect(coffee["productCount"] == Int64(2))
            #expect(coffee["value"] == Decimal(string: "0.3"))
        }
    }

    // MARK: Batch requests

    @Test func aBatchDeleteOfProductsLowersTheCountsAndSums() async throws {
        let fixture = try await fixture()
        try seed(fixture.context())
        let result = try await fixture.container.persistentStore.execute(
            BatchDeleteRequest(
                fetchRequest: FetchRequest(
                    entityName: "Product", predicate: try FetchPredicate(format: "sku == 'A-1'")),
                resultType: .count))
        #expect(result.count == 1)
        #expect(
            try totals(fixture) == [
                [.text("Coffee"), .integer(1), .integer(3), .text("0.2"), .real(2.25)],
                [.text("Tea"), .integer(0), .integer(0), .text("0"), .real(0)],
            ])
    }

    @Test func aBatchDeleteOfACategoryClearsTheCopiesInItsNullifiedProducts() async throws {
        let fixture = try await fixture()
        let (coffee, _) = try seed(fixture.context())
        _ = try await fixture.container.persistentStore.execute(BatchDeleteRequest(objectIDs: [coffee]))
        #expect(
            try fixture.rows("SELECT sku, category, categoryName, searchCategory FROM Product ORDER BY sku") == [
                [.text("A-1"), .null, .null, .null], [.text("A-2"), .null, .null, .null],
            ])
    }

    @Test func aBatchInsertGivesNewRowsTheirDerivedValuesAndAnUpsertUpdatesTheSums() async throws {
        let fixture = try await fixture()
        try seed(fixture.context())
        let store = fixture.container.persistentStore
        _ = try await store.execute(
            BatchInsertRequest(entityName: "Category", objects: [["name": .string("Thé Vert")]]), mergePolicy: .error)
        let row = try fixture.rows(
            "SELECT productCount, stock, value, weight, searchName, upperName, changedAt IS NOT NULL FROM Category "
                + "WHERE name = 'Thé Vert'")
        #expect(
            row == [
                [.integer(0), .integer(0), .text("0"), .real(0), .text("the vert"), .text("THÉ VERT"), .integer(1)]
            ])

        // The upsert updates A-1 in place (it stays in Coffee): 0.1 × 2 becomes 0.75 × 10.
        let upsert = BatchInsertRequest(
            entityName: "Product",
            objects: [["sku": .string("A-1"), "price": .decimal(0.75), "quantity": .integer(10)]])
        _ = try await store.execute(upsert, mergePolicy: .mergeByPropertyObjectTrump)
        #expect(
            try fixture.rows("SELECT productCount, stock, value FROM Category WHERE name = 'Coffee'") == [
                [.integer(2), .integer(13), .text("0.95")]
            ])
    }

    @Test func aBatchUpdateOfPricesKeepsTheDecimalSumExact() async throws {
        let fixture = try await fixture()
        try seed(fixture.context())
        _ = try await fixture.container.persistentStore.execute(
            BatchUpdateRequest(
                entityName: "Product",
                propertiesToUpdate: ["price": .keyPath("price") * .constant(.decimal(3)), "weight": .constant(nil)]))
        #expect(
            try totals(fixture) == [
                [.text("Coffee"), .integer(2), .integer(5), .text("0.9"), .real(0)],
                [.text("Tea"), .integer(0), .integer(0), .text("0"), .real(0)],
            ])
    }

    // MARK: Plain SQL

    @Test func plainSQLOnTheStoreConnectionKeepsDerivedValuesRight() async throws {
        let fixture = try await fixture()
        let (coffee, tea) = try seed(fixture.context())
        let product = entityID(fixture, "Product")
        try execute(
            fixture,
            """
            INSERT INTO Product (_pk, _ent, sku, price, quantity, weight, category)
                VALUES (50, \(product), 'T-1', '1.05', 4, 0.5, \(tea.primaryKey));
            UPDATE Product SET category = \(tea.primaryKey) WHERE sku = 'A-1';
            UPDATE Category SET name = 'Thé' WHERE _pk = \(tea.primaryKey);
            """)
        #expect(
            try totals(fixture) == [
                [.text("Coffee"), .integer(1), .integer(3), .text("0.2"), .real(2.25)],
                [.text("Thé"), .integer(2), .integer(6), .text("1.15"), .real(2)],
            ])
        #expect(try fixture.rows("SELECT searchName FROM Category WHERE _pk = \(tea.primaryKey)") == [[.text("the")]])
        #expect(
            try fixture.rows("SELECT DISTINCT categoryName FROM Product WHERE category = \(tea.primaryKey)") == [
                [.text("Thé")]
            ])

        try execute(fixture, "DELETE FROM Product")
        #expect(
            try fixture.rows("SELECT productCount, stock, value, weight FROM Category WHERE _pk = \(coffee.primaryKey)")
                == [[.integer(0), .integer(0), .text("0"), .real(0)]])
    }

    @Test func aConnectionOfOnesOwnNeedsTheStoreFunctionsToWrite() async throws {
        let fixture = try await fixture()
        let path = fixture.container.storeDescription.sqlitePath
        let category = entityID(fixture, "Category")
        let bare = try Connection(path: path)
        let refusal = #expect(throws: SQLiteError.self) {
            try bare.execute("INSERT INTO Category (_pk, _ent, name) VALUES (90, \(category), 'Épices')")
        }
        #expect(refusal?.message.contains("no such function: ferry_") == true)

        let connection = try Connection(path: path)
        try PersistentStore.registerSQLFunctions(on: connection)
        try connection.execute("INSERT INTO Category (_pk, _ent, name) VALUES (90, \(category), 'Épices')")
        #expect(
            try fixture.rows("SELECT searchName, productCount, value FROM Category WHERE _pk = 90") == [
                [.text("epices"), .integer(0), .text("0")]
            ])
    }

    // MARK: Many-to-many

    @Test func aManyToManyCountAndSumFollowMembershipPricesAndDeletes() async throws {
        let fixture = try await fixture()
        let context = fixture.context()
        try seed(context)
        let tagTotals = { try fixture.rows("SELECT productCount, totalPrice FROM Tag") }
        try context.performAndWait {
            let tag = context.insertObject(entityName: "Tag")
            tag["label"] = "hot"
            for product in try context.all("Product", sortedBy: "sku") { tag.add(product, toKey: "products") }
            try context.save()
        }
        #expect(try tagTotals() == [[.integer(2), .text("0.3")]])

        try context.performAndWait {
            try context.all("Product", sortedBy: "sku")[0]["price"] = Decimal(string: "0.15")
            try context.save()
        }
        #expect(try tagTotals() == [[.integer(2), .text("0.35")]])

        try context.performAndWait {
            let tag = try context.all("Tag", sortedBy: "label")[0]
            let products = try context.all("Product", sortedBy: "sku")
            tag.remove(products[0], fromKey: "products")
            context.delete(products[1])
            try context.save()
        }
        #expect(try tagTotals() == [[.integer(0), .text("0")]])
    }

    // MARK: Opening again

    @Test func openingTheStoreAgainKeepsTheSameTriggersAndModelHash() async throws {
        let fixture = try await fixture()
        let triggers = { try fixture.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name") }
        let created = try triggers()
        #expect(created.count == StoreSchema(model: Self.model).derivationTriggerStatements.count)
        #expect(created.count > 20)

        let again = try await PersistentStore.open(fixture.container.storeDescription, model: Self.model)
        #expect(try triggers() == created)
        #expect(again.metadata.modelHash == Self.model.versionHash)
        #expect(StoreSchema(model: Self.model).derivationTriggerStatements == again.schema.derivationTriggerStatements)
    }

    private func entityID(_ fixture: ContextFixture, _ entity: String) -> Int {
        fixture.container.persistentStore.schema.mapping(for: entity)?.entityID ?? -1
    }
}

extension ManagedObjectContext {
    /// Inserts a category of the derived-attribute model.
    @discardableResult
    fileprivate func category(_ name: String) -> ManagedObject {
        let category = insertObject(entityName: "Category")
        category["name"] = name
        return category
    }

    /// Inserts a product of the derived-attribute model.
    @discardableResult
    fileprivate func product(
        _ sku: String, price: String, quantity: Int, weight: Double, in category: ManagedObject
    ) -> ManagedObject {
        let product = insertObject(entityName: "Product")
        product["sku"] = sku
        product["price"] = Decimal(string: price)
        product["quantity"] = quantity
        product["weight"] = weight
        product.setObject(category, forKey: "category")
        return product
    }
}
