import FerrySQLite
import FerryTestSupport
import Foundation

@testable import FerryStore

/// A real store file for fetch request tests, made with ``StoreMetadata/prepare(_:schema:)`` in its own temporary
/// folder, with rows inserted by plain SQL.
///
/// | Product | sku | name | price | weight | quantity | active | released | category |
/// |---|---|---|---|---|---|---|---|---|
/// | 1 | A-1 | Espresso | 0.1 | 0.25 | 10 | 1 | 2024-01-01 | 1 Coffee |
/// | 2 | A-2 | latte | 12.5 | 0.5 | 0 | 0 | 2024-06-01 | 1 Coffee |
/// | 3 | B-1 | Earl Grey | 2.5 | nil | 3 | 1 | nil | 2 Tea |
/// | 4 | B-2 | assam | 100 | 1.5 | nil | nil | nil | 2 Tea |
/// | 5 | C-1 | Mystery | nil | nil | 7 | 1 | nil | nil |
/// | 6 | A-3 | Cortado | 12345678901234567890.123456789 | 0.25 | 5 | 1 | nil | 1 Coffee |
///
/// Product 1 also has a UUID, a homepage and a two-byte photo. Categories: 1 Coffee, 2 Tea, 3 nil (no products).
/// People (one table): 1 Ada (Person), 2 Grace (Employee), 3 Alan (Manager).
final class FetchRequestFixture {
    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true)
            ]),
        EntityDescription(
            name: "Product",
            attributes: [
                AttributeDescription(name: "sku", type: .string), AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "price", type: .decimal),
                AttributeDescription(name: "weight", type: .double),
                AttributeDescription(name: "quantity", type: .integer32),
                AttributeDescription(name: "active", type: .boolean),
                AttributeDescription(name: "released", type: .date),
                AttributeDescription(name: "code", type: .uuid), AttributeDescription(name: "homepage", type: .uri),
                AttributeDescription(name: "photo", type: .binary),
                AttributeDescription(name: "scratch", type: .string, isTransient: true),
            ],
            relationships: [
                RelationshipDescription(name: "category", destinationEntity: "Category", inverseName: "products")
            ]),
        EntityDescription(name: "Person", attributes: [AttributeDescription(name: "firstName", type: .string)]),
        EntityDescription(
            name: "Employee", parentEntity: "Person",
            attributes: [AttributeDescription(name: "badge", type: .integer32)]
        ),
        EntityDescription(
            name: "Manager", parentEntity: "Employee",
            attributes: [AttributeDescription(name: "level", type: .integer16)]
        ),
    ])

    static let code = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()
    static let bigPrice = "12345678901234567890.123456789"

    let folder: URL
    let connection: Connection
    let schema = StoreSchema(model: FetchRequestFixture.model)
    let metadata: StoreMetadata
    let executor: FetchExecutor

    init() throws {
        folder = try TestSupport.makeTemporaryFolder()
        connection = try Connection(path: folder.appendingPathComponent("store.sqlite").path)
        metadata = try StoreMetadata.prepare(connection, schema: schema)
        let entities = schema.entities
        let ids = ["Category", "Product", "Person", "Employee", "Manager"].map { entities[$0]?.entityID ?? 0 }
        try connection.execute(
            """
            INSERT INTO Category (_pk, _ent, name) VALUES (1, \(ids[0]), 'Coffee'), (2, \(ids[0]), 'Tea'),
                (3, \(ids[0]), NULL);
            INSERT INTO Product (_pk, _ent, sku, name, price, weight, quantity, active, released, code, homepage,
                                 photo, category) VALUES
                (1, \(ids[1]), 'A-1', 'Espresso', '0.1', 0.25, 10, 1, 1704067200.0,
                 '\(Self.code.uuidString.lowercased())', 'https://example.com/espresso', x'0102', 1),
                (2, \(ids[1]), 'A-2', 'latte', '12.5', 0.5, 0, 0, 1717200000.0, NULL, NULL, NULL, 1),
                (3, \(ids[1]), 'B-1', 'Earl Grey', '2.5', NULL, 3, 1, NULL, NULL, NULL, NULL, 2),
                (4, \(ids[1]), 'B-2', 'assam', '100', 1.5, NULL, NULL, NULL, NULL, NULL, NULL, 2),
                (5, \(ids[1]), 'C-1', 'Mystery', NULL, NULL, 7, 1, NULL, NULL, NULL, NULL, NULL),
                (6, \(ids[1]), 'A-3', 'Cortado', '\(Self.bigPrice)', 0.25, 5, 1, NULL, NULL, NULL, NULL, 1);
            INSERT INTO Person (_pk, _ent, firstName, badge, level) VALUES
                (1, \(ids[2]), 'Ada', NULL, NULL), (2, \(ids[3]), 'Grace', 7, NULL), (3, \(ids[4]), 'Alan', 9, 2);
            """)
        executor = try FetchExecutor(connection: connection, schema: schema, storeIdentifier: metadata.storeIdentifier)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The primary keys `request` returns as object IDs, in order.
    func keys(_ request: FetchRequest) throws -> [Int64] {
        try executor.objectIDs(for: request).map(\.primaryKey)
    }

    /// The primary keys of the products matching `format`, sorted by `sorts`.
    func keys(_ format: String = "TRUEPREDICATE", sortedBy sorts: [FetchSortDescriptor]) throws -> [Int64] {
        try keys(FetchRequest(entityName: "Product", predicate: FetchPredicate(format: format), sortDescriptors: sorts))
    }

    /// The decimal `text` spells, read exactly.
    static func decimal(_ text: String) -> AttributeValue {
        .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan)
    }
}
