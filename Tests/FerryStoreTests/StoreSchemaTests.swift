import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// StoreSchema: the readable SQLite layout, created on a real file and checked with SQL.
struct StoreSchemaTests {
    let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category",
            attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true,
                    isOrdered: true)
            ],
            uniquenessConstraints: [["name"]]),
        EntityDescription(
            name: "Product",
            attributes: [
                AttributeDescription(name: "sku", type: .string, isOptional: false),
                AttributeDescription(name: "price", type: .decimal, isIndexed: true),
                AttributeDescription(name: "scratch", type: .string, isTransient: true),
            ],
            relationships: [
                RelationshipDescription(name: "category", destinationEntity: "Category", inverseName: "products"),
                RelationshipDescription(
                    name: "tags", destinationEntity: "Tag", inverseName: "products", isToMany: true),
            ],
            uniquenessConstraints: [["sku"]]),
        EntityDescription(
            name: "Tag", attributes: [AttributeDescription(name: "label", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "tags", isToMany: true)
            ]),
        EntityDescription(
            name: "Person", isAbstract: true,
            attributes: [
                AttributeDescription(name: "firstName", type: .string),
                AttributeDescription(name: "lastName", type: .string),
            ]),
        EntityDescription(
            name: "Employee", parentEntity: "Person",
            attributes: [AttributeDescription(name: "badge", type: .integer32)],
            uniquenessConstraints: [["firstName", "lastName"]]),
    ])

    func createdDatabase() throws -> (Connection, URL) {
        let folder = try TestSupport.makeTemporaryFolder()
        let connection = try Connection(path: folder.appendingPathComponent("store.sqlite").path)
        for statement in StoreSchema(model: model).createStatements { try connection.execute(statement) }
        return (connection, folder)
    }

    func columns(of table: String, in connection: Connection) throws -> [String] {
        try connection.prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid").with(table).fetchAll()
            .compactMap { $0[0].text }
    }

    @Test func entityNumbersFollowTheModelWithParentsFirst() {
        let schema = StoreSchema(model: model)
        #expect(schema.mapping(for: "Category")?.entityID == 1)
        #expect(schema.mapping(for: "Person")?.entityID == 4)
        #expect(schema.mapping(for: "Employee")?.entityID == 5)
        #expect(schema.mapping(for: "Person")?.hierarchyIDs == [4, 5])
        #expect(schema.mapping(for: "Employee")?.table == "Person")
    }

    @Test func tablesAndColumnsAreNamedAfterEntitiesAttributesAndRelationships() throws {
        let (connection, folder) = try createdDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try columns(of: "Category", in: connection) == ["_pk", "_ent", "_opt", "name"])
        #expect(
            try columns(of: "Product", in: connection) == [
                "_pk", "_ent", "_opt", "sku", "price", "category", "_order_category",
            ])
        #expect(try columns(of: "Person", in: connection) == ["_pk", "_ent", "_opt", "firstName", "lastName", "badge"])
        #expect(try columns(of: "Product_tags", in: connection) == ["source", "destination"])
        #expect(try columns(of: "Tag_products", in: connection).isEmpty, "only one side owns a many-to-many table")
    }

    @Test func aUniquenessConstraintIsAUniqueIndex() throws {
        let (connection, folder) = try createdDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        try connection.execute("INSERT INTO Product (_ent, sku) VALUES (2, 'SKU-1')")
        #expect {
            try connection.execute("INSERT INTO Product (_ent, sku) VALUES (2, 'SKU-1')")
        } throws: { error in
            (error as? SQLiteError)?.extendedCode == .uniqueConstraint
        }
        try connection.execute("INSERT INTO Product (_ent, sku) VALUES (2, NULL), (2, NULL)")  // NULLs never collide
    }

    @Test func aSubentityConstraintOnlyCoversThatSubentitysRows() throws {
        let (connection, folder) = try createdDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        try connection.execute(
            "INSERT INTO Person (_ent, firstName, lastName) VALUES (4, 'Ada', 'Byron'), (4, 'Ada', 'Byron')")
        try connection.execute("INSERT INTO Person (_ent, firstName, lastName) VALUES (5, 'Ada', 'Byron')")
        #expect(throws: SQLiteError.self) {
            try connection.execute("INSERT INTO Person (_ent, firstName, lastName) VALUES (5, 'Ada', 'Byron')")
        }
    }

    @Test func foreignKeysAndIndexedAttributesAreIndexed() throws {
        let (connection, folder) = try createdDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = try connection.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Product' ORDER BY name"
        )
        .fetchAll().compactMap { $0[0].text }
        #expect(names.contains("Product_fk_category"))
        #expect(names.contains("Product_index_price"))
        #expect(names.contains("Product_unique_sku"))
    }

    @Test func aRelationshipThatIsItsOwnInverseGetsAJoinTable() {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Person",
                relationships: [
                    RelationshipDescription(
                        name: "friends", destinationEntity: "Person", inverseName: "friends", isToMany: true)
                ])
        ])
        #expect(StoreSchema(model: model).joinTables.map(\.name) == ["Person_friends"])
    }

    @Test func indexesWhoseNamesWouldCollideGetDistinctNames() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "T",
                attributes: [
                    AttributeDescription(name: "a", type: .string), AttributeDescription(name: "b", type: .string),
                    AttributeDescription(name: "a_b", type: .string),
                ],
                indexes: [["a_b"], ["a", "b"]])
        ])
        let connection = try Connection(path: ":memory:")
        for statement in StoreSchema(model: model).createStatements { try connection.execute(statement) }
        let names = try connection.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'T' ORDER BY name"
        )
        .fetchAll().compactMap { $0[0].text }
        #expect(names == ["T_index_a_b", "T_index_a_b_2"])
    }

    @Test func onlyATableHoldingSeveralEntitiesIndexesTheEntityColumn() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Plain", attributes: [AttributeDescription(name: "a", type: .string)]),
            EntityDescription(name: "Animal", attributes: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Dog", parentEntity: "Animal"),
        ])
        let connection = try Connection(path: ":memory:")
        for statement in StoreSchema(model: model).createStatements { try connection.execute(statement) }
        let names = try connection.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name"
        )
        .fetchAll().compactMap { $0[0].text }.filter { $0.hasSuffix("__ent") }
        #expect(names == ["Animal_index__ent"])
    }

    @Test func creatingTwiceChangesNothing() throws {
        let (connection, folder) = try createdDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        for statement in StoreSchema(model: model).createStatements { try connection.execute(statement) }
    }
}

extension Statement {
    /// Binds `value` to the first parameter and returns the statement, for one-line queries in tests.
    fileprivate func with(_ value: String) throws -> Statement {
        try bind(value, at: 1)
        return self
    }
}
