import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Derived attributes added or changed by a migration: the rows already in the store get their values, computed in
/// set-based SQL, and the new triggers keep them from then on.
struct DerivationMigrationTests {
    static let v1 = """
        entities:
          Category:
            attributes:
              name: string
            relationships:
              products: { to: Product, toMany: true, inverse: category }
          Product:
            attributes:
              sku: string
              quantity: integer32
            relationships:
              category: { to: Category, inverse: products }
        """
    static let rows = """
        INSERT INTO Category (_pk, _ent, name) VALUES (1, 1, 'Tools'), (2, 1, 'Toys'), (3, 1, 'Empty');
        INSERT INTO Product (_ent, sku, quantity, category) VALUES
            (2, 'a', 3, 1), (2, 'b', 4, 1), (2, 'c', 10, 2), (2, 'd', NULL, NULL);
        """

    static func values(_ path: String, _ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: path, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { row in (0..<row.count).map { row[$0] } }
    }

    @Test func addedDerivationsAreComputedForTheRowsAlreadyThere() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1
                .replacingOccurrences(
                    of: "name: string\n",
                    with: "name: string\n      productCount: { type: integer64, derivation: \"@count products\" }\n"
                        + "      stock: { type: integer64, derivation: \"@sum products.quantity\" }\n"
                )
                .replacingOccurrences(
                    of: "quantity: integer32\n",
                    with: "quantity: integer32\n      categoryName: { type: string, derivation: category.name }\n")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            let derivations = plan.steps.filter { $0.kind == "changeDerivation" }
            #expect(derivations.map(\.entity) == ["Category", "Category", "Product"])
            #expect(derivations.map(\.cost) == [.onePass, .onePass, .onePass])
            #expect(derivations.map(\.rows) == [3, 3, 4])
            try StoreMigrator(storePath: path).migrate(to: plan)
            #expect(
                try Self.values(path, "SELECT name, productCount, stock FROM Category ORDER BY _pk") == [
                    [.text("Tools"), .integer(2), .integer(7)], [.text("Toys"), .integer(1), .integer(10)],
                    [.text("Empty"), .integer(0), .integer(0)],
                ])
            #expect(
                try Self.values(path, "SELECT categoryName FROM Product ORDER BY sku")
                    == [[.text("Tools")], [.text("Tools")], [.text("Toys")], [.null]])
            // The triggers keep them from here on.
            try Connection(path: path).execute("UPDATE Product SET category = 2 WHERE sku = 'a'")
            #expect(
                try Self.values(path, "SELECT productCount, stock FROM Category ORDER BY _pk")
                    == [[.integer(1), .integer(4)], [.integer(2), .integer(13)], [.integer(0), .integer(0)]])
            #expect(try Self.values(path, "SELECT categoryName FROM Product WHERE sku = 'a'") == [[.text("Toys")]])
        }
    }

    @Test func aChangedDerivationReplacesTheStoredValues() async throws {
        try await MigrationFixture.withStorePath { path in
            let v2 = Self.v1.replacingOccurrences(
                of: "quantity: integer32\n",
                with: "quantity: integer32\n      categoryName: { type: string, derivation: category.name }\n")
            try await MigrationFixture.makeStore(at: path, v2, rows: Self.rows)
            #expect(try Self.values(path, "SELECT categoryName FROM Product WHERE sku = 'c'") == [[.text("Toys")]])
            let v3 = v2.replacingOccurrences(
                of: "derivation: category.name", with: "derivation: \"uppercase: (category.name)\"")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v3))
            #expect(plan.steps.map(\.kind) == ["changeDerivation"])
            try StoreMigrator(storePath: path).migrate(to: plan)
            #expect(
                try Self.values(path, "SELECT categoryName FROM Product ORDER BY sku")
                    == [[.text("TOOLS")], [.text("TOOLS")], [.text("TOYS")], [.null]])
        }
    }
}
