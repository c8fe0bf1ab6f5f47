import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// New uniqueness constraints over duplicate data, each violation policy, and a migration stopped midway.
struct MigrationPolicyTests {
    static let v1 = """
        entities:
          Product:
            attributes: { sku: string, name: string, stock: integer32 }
        """
    static let v2 = """
        entities:
          Product:
            attributes: { sku: string, name: string, stock: integer32 }
            uniquenessConstraints: [[sku]]
        """
    static let rows = """
        INSERT INTO Product (_pk, _ent, sku, name) VALUES (1, 1, 'A', 'first A');
        INSERT INTO Product (_pk, _ent, sku, name) VALUES (2, 1, 'B', 'only B');
        INSERT INTO Product (_pk, _ent, sku, name) VALUES (3, 1, 'A', 'second A');
        INSERT INTO Product (_pk, _ent, sku, name) VALUES (4, 1, 'A', 'third A');
        INSERT INTO Product (_pk, _ent, sku, name) VALUES (5, 1, NULL, 'no sku');
        INSERT INTO Product (_pk, _ent, sku, name) VALUES (6, 1, NULL, 'no sku either');
        """

    func names(_ path: String) throws -> [SQLiteValue] {
        try MigrationFixture.column(at: path, "SELECT name FROM Product ORDER BY _pk")
    }

    @Test func duplicateKeysBlockANewConstraintAndThePlanNamesThem() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.v2))
            #expect(plan.isBlocked)
            let check = try #require(plan.checks.first)
            #expect(check.kind == "duplicateKeys")
            #expect(check.violations == 2)
            #expect(check.samples == ["'A'"] || check.samples == ["A"])
            #expect(plan.steps.contains { $0.kind == "addConstraint" && $0.cost == .indexBuild && $0.rows == 6 })
            #expect(plan.json.contains("\"blocked\":true"))
            #expect(throws: MigrationError.self) { try StoreMigrator(storePath: path).migrate(to: plan) }
            #expect(try names(path).count == 6)
        }
    }

    @Test func keepFirstKeepsTheFirstRowOfEachKeyAndRejectsTheOthersWithTheirValues() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.v2), policy: .keepFirst)
            #expect(!plan.isBlocked)
            #expect(plan.isDestructive)
            let result = try StoreMigrator(storePath: path).migrate(to: plan, allowsDestructiveChanges: true)
            #expect(result.rejected == 2)
            #expect(try names(path) == [.text("first A"), .text("only B"), .text("no sku"), .text("no sku either")])
            #expect(try MigrationFixture.column(at: path, "SELECT pk FROM ferry_migration_rejects ORDER BY pk") == [.integer(3), .integer(4)])
            let kept = try MigrationFixture.column(at: path, "SELECT json_extract(row, '$.name') FROM ferry_migration_rejects ORDER BY pk")
            #expect(kept == [.text("second A"), .text("third A")])
            #expect(try MigrationFixture.column(at: path, "SELECT reason FROM ferry_migration_rejects LIMIT 1").first?.text?.contains("duplicate key") == true)
        }
    }

    @Test func keepLastKeepsTheLastRowOfEachKey() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            try StoreMigrator(storePath: path).migrate(
                to: MigrationFixture.model(Self.v2), policy: .keepLast, allowsDestructiveChanges: true)
            #expect(try names(path) == [.text("only B"), .text("third A"), .text("no sku"), .text("no sku either")])
        }
    }

    @Test func rejectRemovesEveryRowThatSharesAKey() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let result = try StoreMigrator(storePath: path).migrate(
                to: MigrationFixture.model(Self.v2), policy: .reject, allowsDestructiveChanges: true)
            #expect(result.rejected == 3)
            #expect(try names(path) == [.text("only B"), .text("no sku"), .text("no sku either")])
        }
    }

    @Test func rejectRemovesRowsWithoutAValueForANewlyRequiredAttribute() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(of: "sku: string", with: "sku: { type: string, optional: false }")
            #expect(try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2)).isBlocked)
            let result = try StoreMigrator(storePath: path).migrate(
                to: MigrationFixture.model(v2), policy: .reject, allowsDestructiveChanges: true)
            #expect(result.rejected == 2)
            #expect(result.rowsBefore == ["Product": 6])
            #expect(result.rowsAfter == ["Product": 4])
            let summary = try ModelHistory.read(at: path).entries.last?.summary ?? ""
            #expect(summary.contains("\"rowsAfter\":{\"Product\":4}"))
        }
    }

    @Test func aMigrationStoppedWhileCopyingLeavesTheOldModelAndTheNextRunFinishesIt() async throws {
        struct Stop: Error {}
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(of: "stock: integer32", with: "stock: double")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(throws: Stop.self) {
                try StoreMigrator(storePath: path, chunkRows: 2).migrate(
                    to: plan, allowsDestructiveChanges: false, afterChunk: { _, rows in if rows >= 4 { throw Stop() } })
            }
            // Still at the old model, with the copy half done, and refused meanwhile.
            #expect(try MigrationFixture.column(at: path, "SELECT count(*) FROM ferry_migrating_Product") == [.integer(4)])
            let refused = await #expect(throws: StoreError.self) {
                _ = try await PersistentStore.open(
                    PersistentStoreDescription(path: path), model: MigrationFixture.model(Self.v1))
            }
            #expect(refused?.code == .migrationInProgress)
            #expect(refused?.message.contains("ferry migrate") == true)
            var copied: [Int] = []
            try StoreMigrator(storePath: path, chunkRows: 2).migrate(
                to: plan, allowsDestructiveChanges: false, afterChunk: { _, rows in copied.append(rows) })
            #expect(copied == [6])  // resumed after the fourth row
            #expect(try names(path).count == 6)
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Product", sortedBy: "name")
            #expect(rows.count == 6)
            #expect(try ModelHistory.read(at: path).entries.map(\.kind) == ["created", "migrated"])
        }
    }
}
