import FerrySQLite
import FerryTestSupport
import Foundation

@testable import FerryStore

/// A container on a fresh SQLite file in a temporary folder, for context tests, with SQL access to the file.
///
/// The catalog model: `Category` (unique `name`, `rank`; `products` to-many, delete rule chosen per test),
/// `Product` (unique `sku`, `name`, `price` decimal; `category` to-one nullify; `tags` many-to-many), `Tag`
/// (`label`), and `Person` with the compound constraint `firstName, lastName`.
final class ContextFixture: Sendable {
    let folder: URL
    let container: PersistentContainer

    static func catalogModel(productsDeleteRule: DeleteRule = .nullify) -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(
                name: "Category",
                attributes: [
                    AttributeDescription(name: "name", type: .string, isOptional: false, maxLength: 20),
                    AttributeDescription(name: "rank", type: .integer32, defaultValue: .integer(0)),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true,
                        deleteRule: productsDeleteRule)
                ],
                uniquenessConstraints: [["name"]]),
            EntityDescription(
                name: "Product",
                attributes: [
                    AttributeDescription(name: "sku", type: .string, isOptional: false),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "price", type: .decimal, minValue: 0),
                ],
                relationships: [
                    RelationshipDescription(name: "category", destinationEntity: "Category", inverseName: "products"),
                    RelationshipDescription(
                        name: "tags", destinationEntity: "Tag", inverseName: "products", isToMany: true),
                ],
                uniquenessConstraints: [["sku"]]),
            EntityDescription(
                name: "Tag",
                attributes: [AttributeDescription(name: "label", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "products", destinationEntity: "Product", inverseName: "tags", isToMany: true)
                ]),
            EntityDescription(
                name: "Person",
                attributes: [
                    AttributeDescription(name: "firstName", type: .string),
                    AttributeDescription(name: "lastName", type: .string),
                    AttributeDescription(name: "email", type: .string),
                ],
                uniquenessConstraints: [["firstName", "lastName"]]),
        ])
    }

    init(
        model: ManagedObjectModel = ContextFixture.catalogModel(),
        configure: (PersistentContainer) -> Void = { _ in }
    ) async throws {
        folder = try TestSupport.makeTemporaryFolder()
        container = PersistentContainer(
            name: "Catalog", model: model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("catalog.sqlite").path))
        configure(container)
        try await container.loadPersistentStores()
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Rows of `sql`, read on a connection of its own (what another process would see).
    func rows(_ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: container.storeDescription.sqlitePath, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { row in (0..<row.count).map { row[$0] } }
    }

    /// The single integer `sql` returns.
    func integer(_ sql: String) throws -> Int64? {
        try rows(sql).first?.first?.integer
    }

    /// A new background context with `policy`.
    func context(_ policy: MergePolicy = .error) -> ManagedObjectContext {
        let context = container.newBackgroundContext()
        context.mergePolicy = policy
        return context
    }
}

extension ManagedObjectContext {
    /// Inserts a category named `name` with `rank`.
    @discardableResult
    func insertCategory(_ name: String, rank: Int = 0) -> ManagedObject {
        let category = insertObject(entityName: "Category")
        category["name"] = name
        category["rank"] = rank
        return category
    }

    /// Inserts a product.
    @discardableResult
    func insertProduct(_ sku: String, name: String? = nil, price: Decimal? = nil, category: ManagedObject? = nil)
        -> ManagedObject
    {
        let product = insertObject(entityName: "Product")
        product["sku"] = sku
        product["name"] = name
        product["price"] = price
        product.setObject(category, forKey: "category")
        return product
    }

    /// Every object of `entity`, sorted by `key`.
    func all(_ entity: String, sortedBy key: String) throws -> [ManagedObject] {
        Array(try fetch(FetchRequest(entityName: entity, sortDescriptors: [FetchSortDescriptor(key: key)])))
    }
}
