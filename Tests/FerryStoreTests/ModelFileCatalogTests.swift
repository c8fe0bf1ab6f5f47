import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// `Pipelines/catalog.model.yml`, the model of `SampleData/`, and every other model file in `Pipelines/`.
struct ModelFileCatalogTests {
    static let catalogPath = TestSupport.packageRoot.appendingPathComponent("Pipelines/catalog.model.yml").path

    @Test func theCatalogModelLoadsWithoutErrorsOrWarnings() throws {
        let file = try ModelFile(contentsOf: Self.catalogPath)
        #expect(file.warnings.map(\.description) == [])
        #expect(file.model.entities.map(\.name) == ["Category", "Product", "Order", "OrderItem"])
    }

    @Test func everyModelFileInPipelinesLoads() throws {
        let folder = TestSupport.packageRoot.appendingPathComponent("Pipelines")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".model.yml") }
        #expect(names.contains("catalog.model.yml"))
        for name in names {
            #expect(throws: Never.self, "\(name)") {
                try ManagedObjectModel.load(from: folder.appendingPathComponent(name).path)
            }
        }
    }

    @Test func theCatalogDescribesCategoriesAsTheSampleDataHasThem() throws {
        let model = try ManagedObjectModel.load(from: Self.catalogPath)
        let category = try #require(model.entity(named: "Category"))
        #expect(category.attribute(named: "name")?.isOptional == false)
        #expect(category.uniquenessConstraints == [["name"]])
        #expect(
            category.relationship(named: "parent")
                == RelationshipDescription(name: "parent", destinationEntity: "Category", inverseName: "children"))
        #expect(category.relationship(named: "children")?.isToMany == true)
        #expect(category.attribute(named: "productCount")?.derivation == "@count products")
    }

    @Test func theCatalogDescribesProductsAsTheSampleDataHasThem() throws {
        let model = try ManagedObjectModel.load(from: Self.catalogPath)
        let product = try #require(model.entity(named: "Product"))
        #expect(
            product.attributes.map(\.name) == [
                "sku", "name", "price", "quantity", "weight", "active", "created_at", "description", "tags", "photo",
            ])
        #expect(
            product.attributes.map(\.type) == [
                .string, .string, .decimal, .integer32, .double, .boolean, .date, .string, .string, .binary,
            ])
        #expect(product.uniquenessConstraints == [["sku"]])
        #expect(product.indexes == [["category", "price"]])
        #expect(product.attribute(named: "price")?.minValue == 0)
        #expect(product.attribute(named: "quantity")?.isOptional == true)
        #expect(product.attribute(named: "active")?.defaultValue == .boolean(true))
        #expect(product.attribute(named: "photo")?.allowsExternalStorage == true)
        #expect(product.relationship(named: "category")?.destinationEntity == "Category")
    }

    @Test func theCatalogDescribesOrdersAndTheirItems() throws {
        let model = try ManagedObjectModel.load(from: Self.catalogPath)
        let order = try #require(model.entity(named: "Order"))
        #expect(order.uniquenessConstraints == [["order_id"]])
        #expect(
            order.attributes.map(\.name) == [
                "order_id", "placed_at", "customer_name", "customer_email", "customer_city", "customer_country",
                "total", "paid",
            ])
        #expect(order.relationship(named: "items")?.deleteRule == .cascade)
        let item = try #require(model.entity(named: "OrderItem"))
        #expect(item.uniquenessConstraints == [["order_id", "sku"]])
        #expect(item.relationship(named: "order")?.inverseName == "items")
        #expect(item.relationship(named: "product")?.destinationEntity == "Product")
        #expect(model.fetchRequestTemplates["expensiveProducts"]?.predicate == "price > $MIN_PRICE")
    }

    /// Every column of the sample CSV files has a property to go to.
    @Test(arguments: [("categories.csv", "Category"), ("products.csv", "Product")])
    func everySampleDataColumnHasAProperty(file: String, entity: String) throws {
        let model = try ManagedObjectModel.load(from: Self.catalogPath)
        let text = try String(contentsOf: TestSupport.sampleData(file), encoding: .utf8)
        let header = try #require(text.split(separator: "\n").first).split(separator: ",").map(String.init)
        let properties = model.allAttributes(of: entity).map(\.name) + model.allRelationships(of: entity).map(\.name)
        #expect(header.filter { !properties.contains($0) } == [])
    }

    @Test func theCatalogModelCreatesARealStore() throws {
        let model = try ManagedObjectModel.load(from: Self.catalogPath)
        try TestSupport.withTemporaryFolder { folder in
            let connection = try Connection(path: folder.appendingPathComponent("catalog.sqlite").path)
            for statement in StoreSchema(model: model).createStatements { try connection.execute(statement) }
            let tables = try connection.prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'ferry%' ORDER BY name"
            ).fetchAll().compactMap { $0[0].text }
            #expect(tables == ["Category", "Order", "OrderItem", "Product"])
        }
    }
}
