import FerrySQLite
import FerryTestSupport
import Foundation

@testable import FerryStore

/// A real store file in its own temporary folder for the batch request tests, with helpers to seed rows with
/// plain SQL and to read the file back through a separate read-only connection (what any SQLite tool would see).
///
/// The model covers every delete rule and storage shape:
/// - Category —products (cascade)→ Product —reviews (cascade)→ Review —comments (cascade)→ Comment;
/// - Brand —products (nullify)→ Product.brand (a foreign key on Product);
/// - Product —tags (nullify)↔ Tag.products: many-to-many, join table `Product_tags` (source = Product);
/// - Supplier —contracts (deny)→ Contract; Warehouse —bins (nullify)→ Bin.warehouse (non-optional);
/// - Person —passport (nullify)↔ Passport.holder: one-to-one, a foreign key on each side;
/// - Listing with a compound constraint (storeCode, sku); Vehicle (constraint vin) with sub-entity Truck.
final class BatchTestFixture {
    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category",
            attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "rank", type: .integer32, defaultValue: .integer(0)),
            ],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true,
                    deleteRule: .cascade)
            ],
            uniquenessConstraints: [["name"]]),
        EntityDescription(
            name: "Brand", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "brand", isToMany: true,
                    deleteRule: .nullify)
            ]),
        EntityDescription(
            name: "Product",
            attributes: [
                AttributeDescription(name: "sku", type: .string, isOptional: false),
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "price", type: .decimal),
                AttributeDescription(name: "quantity", type: .integer32, defaultValue: .integer(0)),
                AttributeDescription(name: "weight", type: .double),
                AttributeDescription(name: "active", type: .boolean, defaultValue: .boolean(true)),
                AttributeDescription(name: "isFavorite", type: .boolean, defaultValue: .boolean(false)),
                AttributeDescription(name: "updatedAt", type: .date),
                AttributeDescription(name: "code", type: .uuid),
                AttributeDescription(name: "photo", type: .binary),
                AttributeDescription(name: "scratch", type: .string, isTransient: true),
            ],
            relationships: [
                RelationshipDescription(name: "category", destinationEntity: "Category", inverseName: "products"),
                RelationshipDescription(name: "brand", destinationEntity: "Brand", inverseName: "products"),
                RelationshipDescription(
                    name: "reviews", destinationEntity: "Review", inverseName: "product", isToMany: true,
                    deleteRule: .cascade),
                RelationshipDescription(
                    name: "tags", destinationEntity: "Tag", inverseName: "products", isToMany: true),
            ],
            uniquenessConstraints: [["sku"]]),
        EntityDescription(
            name: "Review", attributes: [AttributeDescription(name: "text", type: .string)],
            relationships: [
                RelationshipDescription(name: "product", destinationEntity: "Product", inverseName: "reviews"),
                RelationshipDescription(
                    name: "comments", destinationEntity: "Comment", inverseName: "review", isToMany: true,
                    deleteRule: .cascade),
            ]),
        EntityDescription(
            name: "Comment", attributes: [AttributeDescription(name: "body", type: .string)],
            relationships: [
                RelationshipDescription(name: "review", destinationEntity: "Review", inverseName: "comments")
            ]),
        EntityDescription(
            name: "Tag", attributes: [AttributeDescription(name: "label", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "tags", isToMany: true)
            ]),
        EntityDescription(
            name: "Supplier", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "contracts", destinationEntity: "Contract", inverseName: "supplier", isToMany: true,
                    deleteRule: .deny)
            ]),
        EntityDescription(
            name: "Contract", attributes: [AttributeDescription(name: "number", type: .string)],
            relationships: [
                RelationshipDescription(name: "supplier", destinationEntity: "Supplier", inverseName: "contracts")
            ]),
        EntityDescription(
            name: "Warehouse", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "bins", destinationEntity: "Bin", inverseName: "warehouse", isToMany: true)
            ]),
        EntityDescription(
            name: "Bin", attributes: [AttributeDescription(name: "label", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "warehouse", destinationEntity: "Warehouse", inverseName: "bins", isOptional: false)
            ]),
        EntityDescription(
            name: "Person", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "passport", destinationEntity: "Passport", inverseName: "holder")
            ]),
        EntityDescription(
            name: "Passport", attributes: [AttributeDescription(name: "number", type: .string)],
            relationships: [
                RelationshipDescription(name: "holder", destinationEntity: "Person", inverseName: "passport")
            ]),
        EntityDescription(
            name: "Listing",
            attributes: [
                AttributeDescription(name: "storeCode", type: .string, isOptional: false),
                AttributeDescription(name: "sku", type: .string, isOptional: false),
                AttributeDescription(name: "price", type: .double),
                AttributeDescription(name: "stock", type: .integer64),
            ],
            uniquenessConstraints: [["storeCode", "sku"]]),
        EntityDescription(
            name: "Vehicle",
            attributes: [
                AttributeDescription(name: "vin", type: .string),
                AttributeDescription(name: "wheels", type: .integer16),
            ],
            uniquenessConstraints: [["vin"]]),
        EntityDescription(
            name: "Truck", parentEntity: "Vehicle", attributes: [AttributeDescription(name: "payload", type: .double)]),
    ])

    let folder: URL
    let path: String
    let store: PersistentStore

    private init(folder: URL, path: String, store: PersistentStore) {
        self.folder = folder
        self.path = path
        self.store = store
    }

    /// A new, empty store in a new temporary folder.
    static func make() async throws -> BatchTestFixture {
        let folder = try TestSupport.makeTemporaryFolder()
        let path = folder.appendingPathComponent("batch.sqlite").path
        let store = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
        return BatchTestFixture(folder: folder, path: path, store: store)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The `_ent` number of `entity`.
    func ent(_ entity: String) -> Int {
        store.schema.mapping(for: entity)?.entityID ?? -1
    }

    /// The ID of row `primaryKey` of `entity`.
    func id(_ entity: String, _ primaryKey: Int64) -> ObjectID {
        ObjectID(entityName: entity, primaryKey: primaryKey, storeIdentifier: store.identifier)
    }

    /// Runs seeding SQL on the store's writer; `{Entity}` placeholders become that entity's `_ent` number.
    func seed(_ sql: String) throws {
        var text = sql
        for name in Self.model.entities.map(\.name) {
            text = text.replacingOccurrences(of: "{\(name)}", with: String(ent(name)))
        }
        let finished = text
        try store.writer.sync { try $0.execute(finished) }
    }

    /// The rows `sql` returns, read through a separate read-only connection to the file.
    func rows(_ sql: String) throws -> [[SQLiteValue]] {
        let reader = try Connection(path: path, mode: .readOnly)
        return try reader.prepare(sql).fetchAll().map(\.values)
    }

    /// The single value `sql` returns (`.null` when there is no row).
    func value(_ sql: String) throws -> SQLiteValue {
        try rows(sql).first?.first ?? .null
    }

    /// `SELECT COUNT(*) FROM "table"`.
    func count(_ table: String, where condition: String = "1") throws -> Int64 {
        try value("SELECT COUNT(*) FROM \"\(table)\" WHERE \(condition)").integer ?? -1
    }
}

/// A counter a `@Sendable` handler can bump.
final class BatchCallCounter: @unchecked Sendable {
    // @unchecked Sendable: the batch insert handler that uses it is called serially on the store's writer queue,
    // and the test reads it only after the request has finished.
    var calls = 0
}
