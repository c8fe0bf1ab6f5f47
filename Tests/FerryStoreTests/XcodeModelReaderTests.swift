import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

@Suite("Reading Xcode models")
struct XcodeModelReaderTests {
    @Test("The current version of an .xcdatamodeld equals the same model written in YAML")
    func currentVersionEqualsYAML() throws {
        let xcode = try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.xcdatamodeld"))
        let yaml = try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.model.yml"))
        #expect(xcode.versionHash == yaml.versionHash)
        // Validation rules and templates are outside the hash; the models are equal in every part.
        for (read, written) in zip(xcode.entities, yaml.entities) {
            #expect(read == written)
        }
        #expect(xcode.entities.map(\.name) == ["Animal", "Category", "Dog", "Order", "OrderItem", "Product"])
        #expect(xcode.fetchRequestTemplates == yaml.fetchRequestTemplates)
        #expect(xcode == yaml)
    }

    @Test("Every type, flag, default, rule and derivation is read as Core Data means it")
    func valuesAreReadByType() throws {
        let model = try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.xcdatamodeld"))
        let product = try #require(model.entity(named: "Product"))
        let launched = try #require(product.attribute(named: "launched"))
        // defaultDateTimeInterval and minDateTimeInterval count seconds from 2001-01-01.
        #expect(launched.defaultValue == .date(Date(timeIntervalSince1970: 1_767_225_600)))
        #expect(launched.minValue == 978_307_200)
        #expect(product.attribute(named: "price")?.defaultValue == .decimal(Decimal(string: "0.10")!))
        #expect(product.attribute(named: "active")?.defaultValue == .boolean(true))
        #expect(product.attribute(named: "active")?.isOptional == false)
        #expect(product.attribute(named: "tags")?.type == .transformable(transformer: "StringListTransformer"))
        #expect(product.attribute(named: "scratch")?.isTransient == true)
        #expect(product.attribute(named: "soldCount")?.isIndexed == true)
        #expect(product.attribute(named: "photo")?.allowsExternalStorage == true)
        #expect(product.attribute(named: "sku")?.regularExpression == "^SKU-[0-9]{4,8}$")
        #expect(product.relationship(named: "orderItems")?.deleteRule == .noAction)
        let category = try #require(model.entity(named: "Category"))
        #expect(category.attribute(named: "name")?.minLength == 1)
        #expect(category.attribute(named: "name")?.maxLength == 80)
        // Core Data's `products.@count` in Ferry's spelling.
        #expect(category.attribute(named: "productCount")?.derivation == "@count products")
        let order = try #require(model.entity(named: "Order"))
        #expect(order.attribute(named: "total")?.derivation == "@sum items.price")
        let items = try #require(order.relationship(named: "items"))
        #expect(items.isToMany && items.isOrdered && items.minCount == 1 && items.maxCount == 50)
        #expect(items.deleteRule == .cascade)
        #expect(model.fetchRequestTemplates["expensiveProducts"]?.predicate == "price > $MIN_PRICE")
        #expect(model.fetchRequestTemplates["allOrders"]?.predicate == "TRUEPREDICATE")
    }

    @Test("Parts Ferry does not use are warnings naming the file, line and element")
    func ignoredPartsAreWarnings() throws {
        let file = try ModelFile(contentsOf: XcodeModelFixture.path("Catalog.xcdatamodeld"))
        let contents = XcodeModelFixture.path("Catalog.xcdatamodeld/Catalog 3.xcdatamodel/contents")
        #expect(file.path == XcodeModelFixture.path("Catalog.xcdatamodeld"))
        #expect(
            file.warnings.map(\.description) == [
                "\(contents):17: entity Category: user info of entity Category (exportName) is ignored: Ferry's model "
                    + "has no user info",
                "\(contents):24: entity Order: version hash modifier '2' is ignored: Ferry's version hash comes from "
                    + "the schema",
                "\(contents):69: entity Product: fetch index bySoldCount: order descending is ignored; SQLite reads "
                    + "an index in either direction",
                "\(contents):79: configuration 'Cloud' is ignored: a Ferry store holds every entity of the model",
            ])
        #expect(file.warnings.allSatisfy { $0.code == .ignoredXcodeSetting })
    }

    @Test("The versions of an .xcdatamodeld are listed oldest first, with the one .xccurrentversion names")
    func versionsInOrder() throws {
        let bundle = try XcodeModelBundle(at: XcodeModelFixture.path("Catalog.xcdatamodeld"))
        #expect(bundle.versions.map(\.name) == ["Catalog", "Catalog 2", "Catalog 3"])
        #expect(bundle.currentVersion.name == "Catalog 3")
        let models = try bundle.versions.map { try $0.load().model }
        #expect(models[0].entity(named: "Product")?.attribute(named: "active") == nil)
        #expect(models[1].entity(named: "Product")?.attribute(named: "active")?.defaultValue == .boolean(true))
        #expect(Set(models.map(\.versionHash)).count == 3)
        #expect(models[2] == (try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.xcdatamodeld"))))
    }

    @Test("One .xcdatamodel folder loads by itself, as its bundle's only version")
    func singleVersionFolder() throws {
        let path = XcodeModelFixture.path("Catalog.xcdatamodeld/Catalog 2.xcdatamodel")
        let bundle = try XcodeModelBundle(at: path)
        #expect(bundle.versions.map(\.name) == ["Catalog 2"])
        let model = try ManagedObjectModel.load(from: path + "/")
        #expect(model.entities.map(\.name) == ["Category", "Product"])
        #expect(model.entity(named: "Product")?.uniquenessConstraints == [["sku"]])
    }

    @Test("A minimal file from Xcode 4's first years reads like its YAML")
    func earlyXcodeFile() throws {
        let xcode = try ModelFile(contentsOf: XcodeModelFixture.path("Notes2011.xcdatamodel"))
        let yaml = try ManagedObjectModel.load(from: XcodeModelFixture.path("Notes2011.model.yml"))
        #expect(xcode.model == yaml)
        #expect(xcode.model.versionHash == yaml.versionHash)
        // minCount="1" maxCount="1" is how those files marked a to-one, not a rule.
        #expect(xcode.model.entity(named: "Note")?.relationship(named: "folder")?.minCount == 0)
        #expect(xcode.warnings.isEmpty)
    }

    @Test("Odd whitespace, CRLF line ends and entities in any order read like YAML in the same order")
    func oddWhitespaceAndOrder() throws {
        let xcode = try ManagedObjectModel.load(from: XcodeModelFixture.path("Shuffled.xcdatamodel"))
        let yaml = try ManagedObjectModel.load(from: XcodeModelFixture.path("Shuffled.model.yml"))
        #expect(xcode.entities.map(\.name) == ["Dog", "Product", "Animal", "Category"])
        #expect(xcode == yaml)
        #expect(xcode.versionHash == yaml.versionHash)
    }

    @Test("A store made from an Xcode model keeps its data and maintains its derived attributes")
    func storeFromXcodeModel() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let storePath = folder.appendingPathComponent("catalog.sqlite").path
        let description = PersistentStoreDescription(path: storePath)
        let model = try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.xcdatamodeld"))
        let container = PersistentContainer(name: "Catalog", model: model, storeDescription: description)
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            let category = context.insertObject(entityName: "Category")
            category["name"] = "Tools"
            let product = context.insertObject(entityName: "Product")
            product["sku"] = "SKU-1234"
            product.setObject(category, forKey: "category")
            let order = context.insertObject(entityName: "Order")
            order["number"] = Int64(7)
            order["placedAt"] = Date(timeIntervalSince1970: 1_767_225_600)
            for price in ["2.50", "4.25"] {
                let item = context.insertObject(entityName: "OrderItem")
                item["price"] = Decimal(string: price)
                item.setObject(product, forKey: "product")
                order.add(item, toKey: "items")
            }
            try context.save()
        }
        let (count, total, items, name) = try await container.performBackgroundTask { context in
            let category = try context.fetch(FetchRequest(entityName: "Category"))[0]
            let order = try context.fetch(FetchRequest(entityName: "Order"))[0]
            let product = try context.fetch(FetchRequest(entityName: "Product"))[0]
            return (
                category["productCount"] as Int64?, order["total"] as Decimal?, order["itemCount"] as Int64?,
                product["categoryName"] as String?
            )
        }
        // The derivations were written `products.@count`, `items.price.@sum`, `items.@count` and `category.name`.
        #expect(count == 1)
        #expect(total == Decimal(string: "6.75"))
        #expect(items == 2)
        #expect(name == "Tools")
        let stored = try PersistentStore.storedModel(at: storePath)
        #expect(stored.versionHash == model.versionHash)
    }
}
