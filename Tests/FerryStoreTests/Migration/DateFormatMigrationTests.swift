import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// A text attribute turned date, read in the formats the migration names (as an import's `dateFormats`): the plan
/// shows the formats, the values that fail and what was expected, and each violation policy handles those values.
struct DateFormatMigrationTests {
    /// Rows 1-4: two European dates, one ISO-8601 date, one text no format reads; row 5 has no value.
    static let values: [SQLiteValue] = [.text("05/01/2026"), .text("31/12/1999"), .text("2026-01-05"), .text("soon")]

    static func migrator(_ path: String, _ names: [String]) throws -> StoreMigrator {
        var migrator = StoreMigrator(storePath: path)
        migrator.dateFormats = try names.map { try DateFormat(parsing: $0) }
        return migrator
    }

    @Test func failBlocksAndThePlanShowsTheFormatsTheFailingValuesAndWhatWasExpected() async throws {
        try await MigrationFixture.withStorePath { path in
            try await TypeConversionTests.makeStore(at: path, "string", Self.values)
            let plan = try Self.migrator(path, ["dd/MM/yyyy"]).plan(
                to: MigrationFixture.model(TypeConversionTests.v1("date")))
            #expect(plan.isBlocked)
            let check = try #require(plan.checks.first { $0.kind == "notConvertible" })
            #expect(check.violations == 2 && check.samples == ["_pk 3", "_pk 4"])
            #expect(check.values == ["'2026-01-05'", "'soon'"])
            #expect(check.expected == "a date in dd/MM/yyyy")
            #expect(plan.text.contains("convert 'Product.value' from string to date (date formats: dd/MM/yyyy)"))
            #expect(plan.text.contains("(such as _pk 3 '2026-01-05', _pk 4 'soon'), expected a date in dd/MM/yyyy"))
            #expect(plan.text.contains("other --date-format"))
            #expect(plan.json.contains(#""expected":"a date in dd\/MM\/yyyy""#))
            #expect(plan.json.contains(#""values":["'2026-01-05'","'soon'"]"#))
            let error = #expect(throws: MigrationError.self) {
                try Self.migrator(path, ["dd/MM/yyyy"]).migrate(to: plan, allowsDestructiveChanges: true)
            }
            #expect(error?.code == .dataViolation)
            #expect(
                try MigrationFixture.column(at: path, "SELECT typeof(value) FROM Product WHERE _pk = 1") == [
                    .text("text")
                ])
        }
    }

    @Test func formatsAreTriedInOrderSoAddingOneConvertsTheRest() async throws {
        try await MigrationFixture.withStorePath { path in
            try await TypeConversionTests.makeStore(at: path, "string", Array(Self.values.prefix(3)))
            let plan = try Self.migrator(path, ["dd/MM/yyyy", "iso8601"]).plan(
                to: MigrationFixture.model(TypeConversionTests.v1("date")))
            #expect(!plan.isBlocked && plan.isAutomatic)
            #expect(plan.text.contains("(date formats: dd/MM/yyyy, iso8601)"))
            try Self.migrator(path, ["dd/MM/yyyy", "iso8601"]).migrate(to: plan)
            #expect(
                try MigrationFixture.column(at: path, "SELECT value FROM Product ORDER BY _pk")
                    == [.real(1_767_571_200), .real(946_598_400), .real(1_767_571_200), .null])
        }
    }

    @Test func rejectMovesTheRowsNoFormatReadsIntoTheRejectsWithTheExpectedFormats() async throws {
        try await MigrationFixture.withStorePath { path in
            try await TypeConversionTests.makeStore(at: path, "string", Self.values)
            let migrator = try Self.migrator(path, ["dd/MM/yyyy", "epochSeconds"])
            let plan = try migrator.plan(
                to: MigrationFixture.model(TypeConversionTests.v1("date")), policy: .reject)
            let result = try migrator.migrate(to: plan, allowsDestructiveChanges: true)
            #expect(result.rejected == 2)
            let rejects = try TypeConversionTests.rejects(at: path)
            #expect(rejects.map(\.0) == [3, 4])
            #expect(
                rejects.allSatisfy {
                    $0.1 == "the value of 'Product.value' does not convert from string to date (expected a date in "
                        + "dd/MM/yyyy or seconds since 1970)"
                })
            #expect(
                try MigrationFixture.column(at: path, "SELECT value FROM Product ORDER BY _pk")
                    == [.real(1_767_571_200), .real(946_598_400), .null])
        }
    }

    @Test func defaultGivesTheValuesNoFormatReadsTheDefault() async throws {
        try await MigrationFixture.withStorePath { path in
            try await TypeConversionTests.makeStore(at: path, "string", Self.values)
            let v2 = TypeConversionTests.v1("{ type: date, default: 1970-01-02T00:00:00Z }")
            let migrator = try Self.migrator(path, ["dd/MM/yyyy"])
            let plan = try migrator.plan(to: MigrationFixture.model(v2), policy: .default)
            let check = try #require(plan.checks.first { $0.kind == "notConvertible" })
            #expect(check.violations == 2 && !check.blocks)
            try migrator.migrate(to: plan, allowsDestructiveChanges: true)
            #expect(
                try MigrationFixture.column(at: path, "SELECT value FROM Product ORDER BY _pk")
                    == [.real(1_767_571_200), .real(946_598_400), .real(86400), .real(86400), .null])
        }
    }

    @Test func withoutFormatsAMigrationReadsISO8601Only() async throws {
        try await MigrationFixture.withStorePath { path in
            try await TypeConversionTests.makeStore(at: path, "string", Self.values)
            var migrator = StoreMigrator(storePath: path)
            migrator.dateFormats = []
            let plan = try migrator.plan(to: MigrationFixture.model(TypeConversionTests.v1("date")))
            let check = try #require(plan.checks.first { $0.kind == "notConvertible" })
            #expect(check.samples == ["_pk 1", "_pk 2", "_pk 4"])
            #expect(plan.text.contains("(date formats: iso8601)"))
        }
    }
}
