import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

// Foundation has a `FetchPredicate` and a `FetchPredicateError` too; in this file the names mean Ferry's.

/// A real store file for predicate tests: the schema from ``StoreSchema``, rows inserted with plain SQL, and the
/// predicate SQL functions registered. Each test makes its own (and its own temporary folder).
///
/// Rows (primary keys are what the tests assert):
///
/// | Product | sku | name | price | weight | quantity | active | released | category | tags |
/// |---|---|---|---|---|---|---|---|---|---|
/// | 1 | A-1 | Coffee | 12.5 | 0.25 | 10 | 1 | 2024-01-01 | 1 Coffee | organic, fair-trade |
/// | 2 | A-2 | Café | 9.9 | 0.5 | 0 | 0 | 2024-06-01 | 1 Coffee | organic |
/// | 3 | B-1 | CAFE | 100 | 1.0 | 3 | 1 | 2023-01-01 | 2 Tea | decaf |
/// | 4 | B-2 | Earl Grey | 2.5 | nil | nil | nil | nil | 2 Tea | |
/// | 5 | C-1 | 100% Arabica_blend | 20 | 2.0 | 7 | 1 | 2025-01-01 | 3 Café Crème | organic, fair-trade, decaf |
/// | 6 | C-2 | it's "; DROP TABLE Product; -- | nil | nil | 1 | 0 | nil | nil | |
/// | 7 | D-1 | Straße | 9.5 | 0.75 | 5 | 1 | nil | 3 Café Crème | ÉCO |
/// | 8 | D-2 | nil | 0 | 0.1 | 2 | 0 | nil | 3 Café Crème | |
/// | 9 | E-1 | Cafe + U+0301 (decomposed) + " Noir" | 7 | nil | nil | nil | nil | 2 Tea | |
/// | 10 | F-1 | Star* [Special]? | 1 | nil | nil | nil | nil | 2 Tea | |
///
/// Categories: 1 Coffee (rank 1), 2 Tea (rank 2), 3 Café Crème (rank 3, parent 1), 4 nil (no products).
/// Tags: 1 organic, 2 fair-trade, 3 decaf, 4 ÉCO. People (one table): 1 Ada (Person), 2 Grace (Employee, team 1),
/// 3 Alan (Manager, team 1), 4 Edsger (Employee, team 2), 5 Barbara (Person, but with `team` = 1 set by hand).
/// Teams: 1 Core, 2 Tools, 3 Empty.
final class PredicateFixture {
    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category",
            attributes: [
                AttributeDescription(name: "name", type: .string), AttributeDescription(name: "rank", type: .integer16),
            ],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true),
                RelationshipDescription(name: "parent", destinationEntity: "Category", inverseName: "children"),
                RelationshipDescription(
                    name: "children", destinationEntity: "Category", inverseName: "parent", isToMany: true),
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
                AttributeDescription(name: "notes", type: .transformable(transformer: "JSON")),
                AttributeDescription(name: "scratch", type: .string, isTransient: true),
            ],
            relationships: [
                RelationshipDescription(name: "category", destinationEntity: "Category", inverseName: "products"),
                RelationshipDescription(
                    name: "tags", destinationEntity: "Tag", inverseName: "products", isToMany: true),
            ]),
        EntityDescription(
            name: "Tag", attributes: [AttributeDescription(name: "label", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "tags", isToMany: true)
            ]),
        EntityDescription(name: "Person", attributes: [AttributeDescription(name: "firstName", type: .string)]),
        EntityDescription(
            name: "Employee", parentEntity: "Person",
            attributes: [AttributeDescription(name: "badge", type: .integer32)],
            relationships: [RelationshipDescription(name: "team", destinationEntity: "Team", inverseName: "members")]),
        EntityDescription(
            name: "Manager", parentEntity: "Employee",
            attributes: [AttributeDescription(name: "level", type: .integer16)]),
        EntityDescription(
            name: "Team", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "members", destinationEntity: "Employee", inverseName: "team", isToMany: true)
            ]),
    ])

    static let rows = """
        INSERT INTO Category (_pk, _ent, name, rank, parent) VALUES
            (1, 1, 'Coffee', 1, NULL), (2, 1, 'Tea', 2, NULL), (3, 1, 'Café Crème', 3, 1), (4, 1, NULL, NULL, NULL);
        INSERT INTO Product (_pk, _ent, sku, name, price, weight, quantity, active, released, code, homepage, photo,
                             category) VALUES
            (1, 2, 'A-1', 'Coffee', '12.5', 0.25, 10, 1, 1704067200.0, 'e621e1f8-c36c-495a-93fc-0c247a3e6e5f',
             'https://example.com/coffee', x'0102', 1),
            (2, 2, 'A-2', 'Café', '9.9', 0.5, 0, 0, 1717200000.0, NULL, NULL, NULL, 1),
            (3, 2, 'B-1', 'CAFE', '100', 1.0, 3, 1, 1672531200.0, NULL, NULL, NULL, 2),
            (4, 2, 'B-2', 'Earl Grey', '2.5', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2),
            (5, 2, 'C-1', '100% Arabica_blend', '20', 2.0, 7, 1, 1735689600.0, NULL, NULL, NULL, 3),
            (6, 2, 'C-2', 'it''s "; DROP TABLE Product; --', NULL, NULL, 1, 0, NULL, NULL, NULL, NULL, NULL),
            (7, 2, 'D-1', 'Straße', '9.5', 0.75, 5, 1, NULL, NULL, NULL, NULL, 3),
            (8, 2, 'D-2', NULL, '0', 0.1, 2, 0, NULL, NULL, NULL, NULL, 3),
            (9, 2, 'E-1', 'Cafe\u{301} Noir', '7', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2),
            (10, 2, 'F-1', 'Star* [Special]?', '1', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2);
        INSERT INTO Tag (_pk, _ent, label) VALUES
            (1, 3, 'organic'), (2, 3, 'fair-trade'), (3, 3, 'decaf'), (4, 3, 'ÉCO');
        INSERT INTO Product_tags (source, destination) VALUES
            (1, 1), (1, 2), (2, 1), (3, 3), (5, 1), (5, 2), (5, 3), (7, 4);
        INSERT INTO Person (_pk, _ent, firstName, team) VALUES
            (1, 4, 'Ada', NULL), (2, 5, 'Grace', 1), (3, 6, 'Alan', 1), (4, 5, 'Edsger', 2), (5, 4, 'Barbara', 1);
        INSERT INTO Team (_pk, _ent, name) VALUES (1, 7, 'Core'), (2, 7, 'Tools'), (3, 7, 'Empty');
        """

    let folder: URL
    let connection: Connection
    let schema = StoreSchema(model: PredicateFixture.model)

    init() throws {
        folder = try TestSupport.makeTemporaryFolder()
        connection = try Connection(path: folder.appendingPathComponent("store.sqlite").path)
        for statement in schema.createStatements { try connection.execute(statement) }
        try FetchPredicate.registerSQLFunctions(on: connection)
        try connection.execute(Self.rows)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The primary keys of the `entity` rows that `predicate` selects, in order.
    func keys(_ predicate: FetchPredicate, of entity: String = "Product", includesSubentities: Bool = true) throws
        -> [Int64]
    {
        let compiled = try predicate.sql(for: entity, in: schema, includesSubentities: includesSubentities)
        let statement = try connection.prepare(compiled.selectStatement(columns: ["_pk"]) + " ORDER BY \"t0\".\"_pk\"")
        try statement.bind(compiled.bindings)
        return try statement.fetchAll().compactMap { $0[0].integer }
    }

    /// The primary keys that the format string selects.
    func keys(_ format: String, _ arguments: PredicateArgument..., of entity: String = "Product") throws -> [Int64] {
        try keys(FetchPredicate(format: format, arguments: arguments), of: entity)
    }

    /// The error compiling `format` for `entity` throws.
    func compileError(_ format: String, _ arguments: PredicateArgument..., of entity: String = "Product") throws
        -> FetchPredicateError?
    {
        let predicate = try FetchPredicate(format: format, arguments: arguments)
        do {
            _ = try predicate.sql(for: entity, in: schema)
            return nil
        } catch let error as FetchPredicateError {
            return error
        }
    }
}

struct PredicateFixtureTests {
    @Test func theFixtureHoldsTheRowsTheOtherTestsCountOn() throws {
        let fixture = try PredicateFixture()
        #expect(try fixture.keys(.truePredicate) == Array(1...10))
        #expect(try fixture.keys(.truePredicate, of: "Category") == [1, 2, 3, 4])
        #expect(try fixture.keys(.truePredicate, of: "Tag") == [1, 2, 3, 4])
        #expect(try fixture.keys(.truePredicate, of: "Person") == [1, 2, 3, 4, 5])
        #expect(try fixture.keys(.falsePredicate) == [])
        let decomposed = try fixture.connection.prepare("SELECT name FROM Product WHERE _pk = 9").fetchOne()?[0].text
        #expect(decomposed?.unicodeScalars.count == "Cafe\u{301} Noir".unicodeScalars.count)
        #expect(decomposed?.unicodeScalars.contains("\u{301}") == true)
    }
}
