import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Type changes that are not widenings: values that convert are converted in the table rebuild, and those that do
/// not are never lost: the policy stops the migration, rejects their rows, or gives them the default.
struct ConversionMigrationTests {
    static let v1 = """
        entities:
          Product:
            attributes:
              sku: string
              code: string
              weight: double
        """
    /// Row 2's code is not a number and row 3's is out of integer16's range.
    static let rows = """
        INSERT INTO Product (_pk, _ent, sku, code, weight) VALUES
            (1, 1, 'a', '12', 1.0), (2, 1, 'b', 'abc', 2.0), (3, 1, 'c', '40000', NULL), (4, 1, 'd', NULL, 4.0),
            (5, 1, 'e', '-7', 5.0);
        """
    static let v2 = v1.replacingOccurrences(of: "code: string", with: "code: integer16")

    static func values(_ path: String, _ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: path, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { row in (0..<row.count).map { row[$0] } }
    }

    @Test func valuesThatDoNotConvertBlockTheMigrationUnderFail() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.v2))
            #expect(plan.steps.map(\.kind) == ["convertType", "rebuildTable"])
            #expect(plan.isBlocked)
            let check = try #require(plan.checks.first)
            #expect(check.kind == "notConvertible" && check.violations == 2)
            #expect(check.samples == ["_pk 2", "_pk 3"])
            #expect(plan.text.contains("--on-violation reject or default"))
            let error = #expect(throws: MigrationError.self) { try StoreMigrator(storePath: path).migrate(to: plan) }
            #expect(error?.code == .dataViolation)
            #expect(try Self.values(path, "SELECT typeof(code) FROM Product WHERE _pk = 1") == [[.text("text")]])
        }
    }

    @Test func rejectKeepsTheRowsThatDoNotConvertInTheRejectsAndConvertsTheRest() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.v2), policy: .reject)
            #expect(!plan.isBlocked && plan.isDestructive)
            let result = try StoreMigrator(storePath: path).migrate(to: plan, allowsDestructiveChanges: true)
            #expect(result.rejected == 2)
            #expect(
                try Self.values(path, "SELECT _pk, code, typeof(code) FROM Product ORDER BY _pk") == [
                    [.integer(1), .integer(12), .text("integer")], [.integer(4), .null, .text("null")],
                    [.integer(5), .integer(-7), .text("integer")],
                ])
            #expect(
                try Self.values(path, "SELECT pk, json_extract(row, '$.code') FROM ferry_migration_rejects ORDER BY pk")
                    == [[.integer(2), .text("abc")], [.integer(3), .text("40000")]])
        }
    }

    @Test func defaultGivesTheValuesThatDoNotConvertTheAttributesDefault() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(of: "code: string", with: "code: { type: integer16, default: -1 }")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2), policy: .default)
            #expect(plan.steps.map(\.kind).contains("replaceValues"))
            #expect(throws: MigrationError.self) { try StoreMigrator(storePath: path).migrate(to: plan) }
            try StoreMigrator(storePath: path).migrate(to: plan, allowsDestructiveChanges: true)
            #expect(
                try Self.values(path, "SELECT code FROM Product ORDER BY _pk")
                    == [[.integer(12)], [.integer(-1)], [.integer(-1)], [.null], [.integer(-7)]])
        }
    }

    @Test func aNarrowingEveryValueSurvivesRunsWithoutConsent() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1, rows: Self.rows)
            let v2 = Self.v1.replacingOccurrences(of: "weight: double", with: "weight: integer32")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2))
            #expect(plan.isAutomatic)
            try StoreMigrator(storePath: path).migrate(to: plan)
            #expect(
                try Self.values(path, "SELECT weight, typeof(weight) FROM Product ORDER BY _pk") == [
                    [.integer(1), .text("integer")], [.integer(2), .text("integer")], [.null, .text("null")],
                    [.integer(4), .text("integer")], [.integer(5), .text("integer")],
                ])
            // A fraction does not convert to an integer.
            try Connection(path: path).execute("UPDATE Product SET weight = 2.5 WHERE _pk = 2")
            let back = try StoreMigrator(storePath: path).plan(
                to: MigrationFixture.model(v2.replacingOccurrences(of: "weight: integer32", with: "weight: integer16")))
            #expect(back.isBlocked)
            #expect(back.checks.map(\.samples) == [["_pk 2"]])
        }
    }
}
