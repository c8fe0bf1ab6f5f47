import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Inferred migrations of stores holding data: each change kind, then the store read back with the new model.
struct LightweightMigrationTests {
    static let v1 = """
        entities:
          Product:
            attributes:
              sku: string
              price: double
              stock: integer16
              note: string
            uniquenessConstraints: [[sku]]
        """
    static let rows = """
        INSERT INTO Product (_ent, sku, price, stock, note) VALUES (1, 'A', 1.5, 3, 'x');
        INSERT INTO Product (_ent, sku, price, stock, note) VALUES (1, 'B', 2.5, NULL, NULL);
        """

    @Test func addingAnOptionalAttributeIsInstantAndKeepsEveryRow() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(of: "note: string", with: "note: string\n      origin: string")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(plan.steps.map(\.kind) == ["addAttribute"])
            #expect(plan.steps.map(\.cost) == [.instantDDL])
            #expect(plan.isAutomatic)
            let result = try StoreMigrator(storePath: path).migrate(to: plan)
            #expect(result.rowsBefore == ["Product": 2])
            #expect(result.rowsAfter == ["Product": 2])
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Product", sortedBy: "sku")
            #expect(rows.map { $0["sku"] ?? nil } == [.string("A"), .string("B")])
            #expect(rows.map { $0["origin"] ?? nil } == [nil, nil])
        }
    }

    @Test func aNewRequiredAttributeWithADefaultFillsTheRowsAlreadyThere() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(
                of: "note: string", with: "note: string\n      active: { type: boolean, optional: false, default: true }")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(plan.steps.map(\.kind) == ["addAttribute", "fillDefault"])
            try StoreMigrator(storePath: path).migrate(to: plan)
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Product", sortedBy: "sku")
            #expect(rows.map { $0["active"] ?? nil } == [.boolean(true), .boolean(true)])
        }
    }

    @Test func aNewRequiredAttributeWithoutADefaultIsBlockedByTheRowsAlreadyThere() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(
                of: "note: string", with: "note: string\n      origin: { type: string, optional: false }")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(plan.isBlocked)
            #expect(plan.checks.map(\.violations) == [2])
            #expect(plan.text.contains("give 'Product.origin' a default value"))
            let error = #expect(throws: MigrationError.self) { try StoreMigrator(storePath: path).migrate(to: plan) }
            #expect(error?.code == .dataViolation)
            #expect(try ModelHistory.read(at: path).entries.count == 1)
        }
    }

    @Test func anAttributeMadeRequiredGivesItsNullsTheDefault() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(
                of: "note: string", with: "note: { type: string, optional: false, default: none }")
            try StoreMigrator(storePath: path).migrate(to: MigrationFixture.model(v2))
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Product", sortedBy: "sku")
            #expect(rows.map { $0["note"] ?? nil } == [.string("x"), .string("none")])
        }
    }

    @Test func renamingAnAttributeAndAnEntityKeepsTheirData() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = """
                entities:
                  Item:
                    renamingIdentifier: Product
                    attributes:
                      code: { type: string, renamingIdentifier: sku }
                      price: double
                      stock: integer16
                      note: string
                    uniquenessConstraints: [[code]]
                """
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(Set(plan.steps.map(\.kind)).isSuperset(of: ["renameEntity", "renameTable", "renameAttribute"]))
            #expect(!plan.isDestructive)
            try StoreMigrator(storePath: path).migrate(to: plan)
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Item", sortedBy: "code")
            #expect(rows.map { $0["code"] ?? nil } == [.string("A"), .string("B")])
            #expect(rows.map { $0["price"] ?? nil } == [.double(1.5), .double(2.5)])
            #expect(try MigrationFixture.column(at: path, "SELECT name FROM sqlite_master WHERE name = 'Product'").isEmpty)
            // The constraint holds on the renamed column.
            #expect(throws: SQLiteError.self) {
                try Connection(path: path).execute("INSERT INTO Item (_ent, code) VALUES (1, 'A')")
            }
        }
    }

    @Test func wideningAnIntegerToADoubleRebuildsTheTableAndConvertsEveryValue() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(of: "stock: integer16", with: "stock: double")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(plan.steps.contains { $0.cost == .tableRebuild })
            try StoreMigrator(storePath: path, chunkRows: 1).migrate(to: plan)
            #expect(try MigrationFixture.column(at: path, "SELECT typeof(stock) FROM Product ORDER BY sku")
                == [.text("real"), .text("null")])
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Product", sortedBy: "sku")
            #expect(rows.map { $0["stock"] ?? nil } == [.double(3), nil])
            #expect(try MigrationFixture.column(at: path, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'ferry_migrating%'") == [.integer(0)])
            // The unique index came back with the rebuilt table.
            #expect(throws: SQLiteError.self) {
                try Connection(path: path).execute("INSERT INTO Product (_ent, sku) VALUES (1, 'A')")
            }
        }
    }

    @Test func wideningAcrossIntegerSizesChangesNoRow() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(of: "stock: integer16", with: "stock: integer64")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(plan.steps.map(\.cost) == [.instantDDL])
            try StoreMigrator(storePath: path).migrate(to: plan)
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Product", sortedBy: "sku")
            #expect(rows.map { $0["stock"] ?? nil } == [.integer(3), nil])
        }
    }

    @Test func aTypeChangeWithoutAConversionCannotBeInferredAndTouchesNothing() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(of: "price: double", with: "price: uuid")
            let error = #expect(throws: MigrationError.self) {
                try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            }
            #expect(error?.code == .notInferable)
            #expect(error?.message.contains("'Product.price' changes type from double to uuid") == true)
            #expect(error?.message.contains("custom stage") == true)
        }
    }

    @Test func splittingAnEntityCannotBeInferred() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = """
                entities:
                  Product:
                    attributes: { sku: string, price: double, stock: integer16, note: string }
                  Item:
                    renamingIdentifier: Product
                    attributes: { sku: string }
                """
            let error = #expect(throws: MigrationError.self) {
                try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            }
            #expect(error?.code == .notInferable)
            #expect(error?.message.contains("splitting an entity") == true)
        }
    }

    @Test func removingAnAttributeThatHoldsDataIsDestructiveAndNeedsConsent() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(of: "      note: string\n", with: "")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(plan.isDestructive)
            #expect(!plan.isAutomatic)
            let error = #expect(throws: MigrationError.self) { try StoreMigrator(storePath: path).migrate(to: plan) }
            #expect(error?.code == .destructive)
            try StoreMigrator(storePath: path).migrate(to: plan, allowsDestructiveChanges: true)
            #expect(try MigrationFixture.column(at: path, "SELECT count(*) FROM pragma_table_info('Product') WHERE name = 'note'") == [.integer(0)])
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Product", sortedBy: "sku")
            #expect(rows.count == 2)
        }
    }

    @Test func addingAndRemovingEntitiesCreatesAndDropsTheirTables() async throws {
        try await MigrationFixture.withStorePath { path in
            let v1 = Self.v1 + "\n  Legacy:\n    attributes: { code: string }\n"
            try await MigrationFixture.makeStore(at: path, v1, rows: Self.rows)
            let v2 = Self.v1 + "\n  Supplier:\n    attributes: { name: string }\n"
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(!plan.isDestructive)  // Legacy holds no rows
            try StoreMigrator(storePath: path).migrate(to: plan)
            #expect(try MigrationFixture.column(at: path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('Legacy', 'Supplier')") == [.text("Supplier")])
            try Connection(path: path).execute("INSERT INTO Supplier (_ent, name) VALUES (3, 'Acme')")
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Supplier", sortedBy: "name")
            #expect(rows.map { $0["name"] ?? nil } == [.string("Acme")])
        }
    }
}
