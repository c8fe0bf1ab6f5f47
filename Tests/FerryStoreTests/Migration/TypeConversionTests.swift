import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// One type change with data: stored values of the old type that convert (and what they become) and values that
/// do not.
struct ConversionCase: Sendable, CustomTestStringConvertible {
    var from: String
    var to: String
    /// Stored values of the old type and the value each becomes.
    var converting: [(SQLiteValue, AttributeValue)]
    /// Stored values of the old type that do not convert.
    var failing: [SQLiteValue] = []
    /// The formats a text turned date may be in.
    var dateFormats: [DateFormat] = [.iso8601]

    var testDescription: String {
        dateFormats == [.iso8601] ? "\(from) → \(to)" : "\(from) → \(to) in \(dateFormats.map(\.description))"
    }

    /// A text → date case read in the formats `names` (a name that does not compile is left out, so its values
    /// fail to convert and the case fails).
    static func textToDate(_ names: [String], _ converting: [(String, Double)], failing: [String]) -> ConversionCase {
        ConversionCase(
            from: "string", to: "date", converting: converting.map { (.text($0.0), date($0.1)) },
            failing: failing.map(SQLiteValue.text), dateFormats: names.compactMap { try? DateFormat(parsing: $0) })
    }

    static func date(_ seconds: Double) -> AttributeValue { .date(Date(timeIntervalSince1970: seconds)) }

    static let uuid = "123e4567-e89b-12d3-a456-426614174000"

    /// Every pair the conversion table names, and the widenings beside them.
    static let all: [ConversionCase] = [
        ConversionCase(
            from: "string", to: "date",
            converting: [
                (.text("2026-01-05"), date(1_767_571_200)), (.text("2026-01-05T09:00:00Z"), date(1_767_603_600)),
                (.text(" 2026-01-05 09:00+01:00 "), date(1_767_600_000)),
                (.text("2026-01-05T09:00:00.250-02:30"), date(1_767_612_600.25)),
            ], failing: [.text("05/01/2026"), .text("2026-02-30"), .text("yesterday")]),
        textToDate(
            ["d/M/yyyy"],
            [("05/01/2026", 1_767_571_200), ("5/1/2026", 1_767_571_200), (" 29/02/2024 ", 1_709_164_800)],
            failing: ["2026-01-05", "31/02/2026", "05/13/2026", "05/01/26"]),
        textToDate(
            ["dd/MM/yyyy HH:mm", "iso8601"],
            [("05/01/2026 09:30", 1_767_605_400), ("2026-01-05T09:00:00+01:00", 1_767_600_000)],
            failing: ["05/01/2026", "05/01/2026 24:00"]),
        textToDate(
            ["epochSeconds"],
            [("1767603600", 1_767_603_600), ("1767603600.25", 1_767_603_600.25), ("-86400", -86400),
             ("1.7676036e9", 1_767_603_600)],
            failing: ["1767603600000", "2026-01-05", "12abc"]),
        textToDate(
            ["epochMilliseconds"],
            [("1767603600000", 1_767_603_600), ("1767603600250", 1_767_603_600.25), ("-86400000", -86400)],
            failing: ["1e20", "soon"]),
        textToDate(
            ["iso8601", "d/M/yyyy", "epochSeconds"],
            [("2026-01-05", 1_767_571_200), ("06/01/2026", 1_767_657_600), ("0", 0)],
            failing: ["01-06-2026", "June 6th"]),
        ConversionCase(
            from: "date", to: "integer64",
            converting: [(.real(1_767_603_600), .integer(1_767_603_600)), (.real(-86400), .integer(-86400))],
            failing: [.real(1.5)]),
        ConversionCase(
            from: "date", to: "integer32", converting: [(.real(1_767_603_600), .integer(1_767_603_600))],
            failing: [.real(3e9), .real(0.5)]),
        ConversionCase(from: "date", to: "double", converting: [(.real(1_767_603_600.25), .double(1_767_603_600.25))]),
        ConversionCase(
            from: "integer64", to: "date", converting: [(.integer(1_767_603_600), date(1_767_603_600))],
            failing: [.integer(253_402_300_800), .integer(-62_167_219_201)]),
        ConversionCase(
            from: "double", to: "date",
            converting: [
                (.real(1_767_603_600.25), date(1_767_603_600.25)),
                // The last second of year 9999 is in, fractions too; 10000-01-01T00:00:00Z is not.
                (.real(253_402_300_799.5), date(253_402_300_799.5)),
            ], failing: [.real(1e12), .real(253_402_300_800), .real(-62_167_219_200.5)]),
        ConversionCase(
            from: "date", to: "string",
            converting: [
                (.real(1_767_603_600), .string("2026-01-05T09:00:00Z")),
                (.real(1_767_603_600.25), .string("2026-01-05T09:00:00.25Z")),
            ]),
        ConversionCase(
            from: "string", to: "uuid",
            converting: [
                (.text(uuid.uppercased()), .uuid(UUID(uuidString: uuid) ?? UUID())),
                (.text(uuid), .uuid(UUID(uuidString: uuid) ?? UUID())),
            ], failing: [.text("123e4567e89b12d3a456426614174000"), .text("not-a-uuid")]),
        ConversionCase(from: "uuid", to: "string", converting: [(.text(uuid), .string(uuid))]),
        ConversionCase(
            from: "string", to: "binary",
            converting: [(.text("héllo"), .binary(Data("héllo".utf8))), (.text(""), .binary(Data()))]),
        ConversionCase(
            from: "binary", to: "string", converting: [(.blob(Array("héllo".utf8)), .string("héllo"))],
            failing: [.blob([0xFF, 0xFE]), .blob([0xC3])]),
        ConversionCase(
            from: "boolean", to: "integer16", converting: [(.integer(1), .integer(1)), (.integer(0), .integer(0))]),
        ConversionCase(
            from: "integer32", to: "boolean",
            converting: [(.integer(1), .boolean(true)), (.integer(0), .boolean(false))],
            failing: [.integer(2), .integer(-1)]),
        ConversionCase(
            from: "boolean", to: "string",
            converting: [(.integer(1), .string("true")), (.integer(0), .string("false"))], failing: [.integer(2)]),
        ConversionCase(
            from: "string", to: "boolean",
            converting: [(.text(" Yes"), .boolean(true)), (.text("0"), .boolean(false))],
            failing: [.text("maybe")]),
        ConversionCase(
            from: "string", to: "integer64",
            converting: [
                (.text("12.0"), .integer(12)), (.text("12.000"), .integer(12)), (.text("-0.0"), .integer(0)),
                (.text("1e3"), .integer(1000)), (.text(" 42 "), .integer(42)),
                (.text("-9223372036854775808"), .integer(Int64.min)),
            ], failing: [.text("12.5"), .text("9223372036854775808"), .text("abc"), .text("12abc")]),
        ConversionCase(
            from: "decimal", to: "integer16",
            converting: [
                (.text("1e3"), .integer(1000)), (.text("-0.0"), .integer(0)), (.text("12"), .integer(12)),
                // An INTEGER another writer left in the decimal column.
                (.integer(7), .integer(7)),
            ],
            failing: [.text("12.5"), .text("40000")]),
        ConversionCase(
            from: "string", to: "decimal",
            converting: [
                (.text("24.90"), .decimal(Decimal(string: "24.9") ?? 0)), (.text("1e3"), .decimal(1000)),
                (.text("-0.5"), .decimal(Decimal(string: "-0.5") ?? 0)), (.integer(5), .decimal(5)),
                (.text("1e-1"), .decimal(Decimal(string: "0.1") ?? 0)),
                (.text("-2.5E+3"), .decimal(-2500)), (.text("+1.5"), .decimal(Decimal(string: "1.5") ?? 0)),
                (.text("1.5e-3"), .decimal(Decimal(string: "0.0015") ?? 0)), (.text(".5"), .decimal(Decimal(string: "0.5") ?? 0)),
            ], failing: [.text("abc"), .text("12abc"), .text("1e"), .text("1e+"), .text("1.2.3"), .text("e5"),
                .text("1e-1-1")]),
        ConversionCase(
            from: "string", to: "integer32",
            converting: [
                (.text("10e-1"), .integer(1)), (.text("-2.5E+3"), .integer(-2500)), (.text("+15"), .integer(15)),
                (.text("1.5e1"), .integer(15)), (.text("2E+0"), .integer(2)), (.text("-0e-5"), .integer(0)),
            ], failing: [.text("1e-1"), .text("+1.5"), .text("15e-1"), .text("3e9"), .text("1e")]),
        ConversionCase(
            from: "string", to: "float",
            converting: [
                (.text("1e-1"), .double(0.1)), (.text("-2.5E+3"), .double(-2500)), (.text("+1.5"), .double(1.5)),
                (.text(".5"), .double(0.5)), (.text("5."), .double(5)),
            ], failing: [.text("1e39"), .text("nan"), .text("1e"), .text("0x10")]),
        ConversionCase(
            from: "string", to: "uri",
            converting: [
                (
                    .text("https://example.com/a?b=1"),
                    .uri(URL(string: "https://example.com/a?b=1") ?? URL(fileURLWithPath: "/"))
                )
            ], failing: [.text("")]),
        ConversionCase(from: "integer64", to: "float", converting: [(.integer(3), .double(3))]),
        ConversionCase(
            from: "string", to: "double",
            converting: [
                (.text("2.5"), .double(2.5)), (.text("1e-1"), .double(0.1)), (.text("-2.5E+3"), .double(-2500)),
                (.text("+1.5"), .double(1.5)), (.text(" .5 "), .double(0.5)), (.text("007"), .double(7)),
                (.text("2.2250738585072014e-308"), .double(.leastNormalMagnitude)),
            ], failing: [.text("x"), .text("1e400"), .text("inf"), .text("1e"), .text("1.2.3"), .text("- 1")]),
        ConversionCase(
            from: "decimal", to: "double",
            converting: [(.text("0.1"), .double(0.1)), (.text("-2500"), .double(-2500)), (.integer(3), .double(3))]),
    ]
}

/// Every type change is a conversion or a clear refusal: each pair of the conversion table migrated under `reject`
/// with values that convert and values that do not. A converted value reads back through a fetch as the value it
/// names, and is stored exactly as a fresh insert of that value is; a value that does not convert lands in
/// `ferry_migration_rejects` with its reason.
struct TypeConversionTests {
    static func v1(_ type: String) -> String {
        """
        entities:
          Product:
            attributes:
              sku: string
              value: \(type)
        """
    }

    /// The key of row `pk`.
    static func sku(_ pk: Int) -> String { "r\(pk)" }

    /// A store of `type` holding `values` (row `pk` is `values[pk - 1]`) and one row without a value.
    static func makeStore(at path: String, _ type: String, _ values: [SQLiteValue]) async throws {
        try await MigrationFixture.makeStore(at: path, v1(type))
        let connection = try Connection(path: path)
        for (index, value) in (values + [.null]).enumerated() {
            let insert = try connection.prepare("INSERT INTO Product (_pk, _ent, sku, value) VALUES (?, 1, ?, ?)")
            try insert.bind([.integer(Int64(index + 1)), .text(sku(index + 1)), value])
            try insert.run()
        }
    }

    @Test(arguments: ConversionCase.all)
    func aTypeChangeConvertsWhatConvertsAndRejectsTheRest(_ pair: ConversionCase) async throws {
        try await MigrationFixture.withStorePath { path in
            try await Self.makeStore(at: path, pair.from, pair.converting.map(\.0) + pair.failing)
            let v2 = Self.v1(pair.to)
            var migrator = StoreMigrator(storePath: path)
            migrator.dateFormats = pair.dateFormats
            let plan = try migrator.plan(to: MigrationFixture.model(v2), policy: .reject)
            let failingKeys = pair.failing.indices.map { "_pk \(pair.converting.count + $0 + 1)" }
            let check = plan.checks.first { $0.kind == "notConvertible" }
            #expect(check?.violations ?? 0 == pair.failing.count)
            #expect(check?.samples ?? [] == Array(failingKeys.prefix(5)))
            let result = try StoreMigrator(storePath: path).migrate(to: plan, allowsDestructiveChanges: true)
            #expect(result.rejected == pair.failing.count)

            // Read back through a fetch, with the new model.
            let rows = try await MigrationFixture.rows(at: path, v2, entity: "Product", sortedBy: "sku")
            var read: [String: AttributeValue?] = [:]
            for row in rows {
                if case .string(let key)? = row["sku"] { read.updateValue(row["value"] ?? nil, forKey: key) }
            }
            #expect(read.count == pair.converting.count + 1)
            for (index, (_, expected)) in pair.converting.enumerated() {
                #expect(read[Self.sku(index + 1)] == expected, "row \(index + 1)")
            }
            #expect(read[Self.sku(pair.converting.count + pair.failing.count + 1)] == .some(nil))

            // Stored exactly as a fresh insert of the same value is.
            let store = try await PersistentStore.open(
                PersistentStoreDescription(path: path), model: MigrationFixture.model(v2))
            let fresh: [[String: AttributeValue?]] = pair.converting.enumerated().map { index, value in
                ["sku": .string("fresh\(index + 1)"), "value": value.1]
            }
            _ = try await store.execute(BatchInsertRequest(entityName: "Product", objects: fresh), mergePolicy: .error)
            for index in pair.converting.indices {
                let stored = try MigrationFixture.column(
                    at: path, "SELECT quote(value) FROM Product WHERE sku IN ('r\(index + 1)', 'fresh\(index + 1)')")
                #expect(stored.count == 2 && stored[0] == stored[1], "row \(index + 1): \(stored)")
            }

            let rejects = try TypeConversionTests.rejects(at: path)
            #expect(rejects.map(\.0) == pair.failing.indices.map { Int64(pair.converting.count + $0 + 1) })
            for (_, reason) in rejects {
                #expect(
                    reason.hasPrefix("the value of 'Product.value' does not convert from \(pair.from) to \(pair.to)"))
                #expect(reason.contains("(expected "))
            }
        }
    }

    static func rejects(at path: String) throws -> [(Int64, String)] {
        let exists = try MigrationFixture.column(
            at: path, "SELECT count(*) FROM sqlite_master WHERE name = 'ferry_migration_rejects'")
        guard exists == [.integer(1)] else { return [] }
        let connection = try Connection(path: path, mode: .readOnly)
        return try connection.prepare("SELECT pk, reason FROM ferry_migration_rejects ORDER BY pk").fetchAll().map {
            ($0[0].integer ?? 0, $0[1].text ?? "")
        }
    }

    @Test(arguments: [("date", "uuid"), ("uuid", "binary"), ("date", "boolean"), ("uri", "date")])
    func aPairWithoutAMeaningIsNotInferableAndTheMessageNamesACustomStage(_ from: String, _ to: String) async throws {
        try await MigrationFixture.withStorePath { path in
            try await Self.makeStore(at: path, from, [])
            let error = #expect(throws: MigrationError.self) {
                try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.v1(to)))
            }
            #expect(error?.code == .notInferable)
            #expect(error?.message.contains("from \(from) to \(to), which Ferry cannot convert") == true)
            #expect(error?.message.contains("custom stage") == true)
        }
    }

    @Test func textThatIsNotADateBlocksTheMigrationUnderFailAndThePlanNamesTheRows() async throws {
        try await MigrationFixture.withStorePath { path in
            try await Self.makeStore(
                at: path, "string", [.text("2026-01-05"), .text("soon"), .text("2026-13-01"), .text("2026-01-06")])
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.v1("date")))
            #expect(plan.isBlocked)
            let check = try #require(plan.checks.first { $0.kind == "notConvertible" })
            #expect(check.violations == 2 && check.samples == ["_pk 2", "_pk 3"])
            #expect(check.values == ["'soon'", "'2026-13-01'"])
            #expect(plan.text.contains("(date formats: iso8601)"))
            #expect(
                plan.text.contains(
                    "(such as _pk 2 'soon', _pk 3 '2026-13-01'), expected a date in ISO-8601 (2026-01-05T09:00:00Z)"))
            let error = #expect(throws: MigrationError.self) { try StoreMigrator(storePath: path).migrate(to: plan) }
            #expect(error?.code == .dataViolation)
            #expect(
                try MigrationFixture.column(at: path, "SELECT typeof(value) FROM Product WHERE _pk = 1")
                    == [.text("text")])
        }
    }

    @Test func defaultGivesTextThatIsNotADateTheDefaultAndConvertsTheRest() async throws {
        try await MigrationFixture.withStorePath { path in
            try await Self.makeStore(at: path, "string", [.text("2026-01-05"), .text("soon")])
            let v2 = Self.v1("{ type: date, default: 1970-01-02T00:00:00Z }")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(v2), policy: .default)
            #expect(plan.steps.map(\.kind).contains("replaceValues"))
            try StoreMigrator(storePath: path).migrate(to: plan, allowsDestructiveChanges: true)
            #expect(
                try MigrationFixture.column(at: path, "SELECT value FROM Product ORDER BY _pk")
                    == [.real(1_767_571_200), .real(86400), .null])
        }
    }

    @Test func decimalTextWithAZeroFractionReadsAsItsInteger() throws {
        // "1e-1" is a number (0.1) but not a whole one; "10e-1" is 1.
        let cases: [(String, Int64?)] = [
            ("12", 12), ("12.0", 12), ("12.000", 12), ("-0.0", 0), ("1e3", 1000), ("+7", 7), ("-12.50e1", -125),
            ("10e-1", 1), ("-2.5E+3", -2500), ("0e5", 0), ("-9223372036854775808", Int64.min), ("1e19", nil),
            ("12.5", nil), ("1e-1", nil), ("", nil), ("-", nil), ("1.2.3", nil), ("9223372036854775807", Int64.max),
            ("9223372036854775808", nil), ("-9223372036854775809", nil), ("9223372036854775807.000", Int64.max),
        ]
        for (text, expected) in cases {
            var copy = text
            let integer = copy.withUTF8 { ConversionSQLFunctions.integer(spelledBy: UnsafeRawBufferPointer($0)) }
            #expect(integer == expected, "\(text)")
        }
    }
}
