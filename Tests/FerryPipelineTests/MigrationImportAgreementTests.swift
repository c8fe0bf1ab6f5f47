import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline

/// A migration's text → number and text → date conversions take exactly the texts an import of the same attribute
/// type takes, and store exactly what that import stores: each text is converted by the importer's field converter
/// and by a migration of a string attribute to the type, and the two outcomes are compared.
struct MigrationImportAgreementTests {
    /// Texts of numbers in the forms data files use, and some that are not numbers.
    static let numbers = [
        "0", "42", "-17", "+15", "007", "2.5", "-0.0", ".5", "5.", "+1.5", "1e3", "1E3", "1e-1", "1e+1", "-2.5E+3",
        "10e-1", "1.5e-3", "1.7976931348623157e308", "2.2250738585072011e-308", "123456789012345678901234567890",
        "1234567890123456789012345678901234567890", "3.4028235e38", "-3.4028235e+38", "3.4028236e38", "1e39", "1e400",
        "1e-400", "1e127", "1e128", " 2.5 ", "\t-3e2\n",
        "1e", "1e+", "e5", ".", "-", "1.2.3", "1e-1-1", "12abc", "0x10", "nan", "inf", "- 1", "1_000", "1,5",
    ]

    /// Date texts in ISO-8601, `dd/MM/yyyy`, epoch seconds and milliseconds, and some that are none of them.
    static let dates = [
        "2026-01-05", "2026-01-05T09:00:00Z", "2026-01-05 09:00+01:00", "2026-01-05T09:00:00.250-02:30",
        "05/01/2026", "31/12/1999", "29/02/2024", "29/02/2026", "1767603600", "1767603600.25", "-86400", "1e9",
        "1767603600000", "0", " 05/01/2026 ", "2026-13-01", "05/13/2026", "soon", "05/01/26",
    ]

    static let model = """
        entities:
          Product:
            attributes:
              sku: string
              value: TYPE
        """

    @Test(arguments: [AttributeType.double, .float, .decimal])
    func aNumberTextConvertsInAMigrationExactlyWhenAnImportTakesItAndStoresTheSameValue(_ type: AttributeType)
        async throws
    {
        try await Self.compare(Self.numbers, to: type, formats: [.iso8601])
    }

    @Test(arguments: [
        ["iso8601"], ["dd/MM/yyyy"], ["epochSeconds"], ["epochMilliseconds"],
        ["dd/MM/yyyy", "iso8601", "epochSeconds"],
    ])
    func aDateTextConvertsInAMigrationExactlyWhenAnImportWithTheSameFormatsTakesIt(_ names: [String]) async throws {
        try await Self.compare(Self.dates, to: .date, formats: try names.map { try DateFormat(parsing: $0) })
    }

    @Test func anIntegerTakesANumberWithAZeroFractionWhateverTheSignOfItsExponent() async throws {
        let texts = ["10e-1", "1e-1", "-2.5E+3", "+15", "+1.5", "1.5e1", "2E+0", "-0e-5", "15e-1", "1e3", "3e9"]
        let stored = try await Self.migrate(texts, to: .integer32, formats: [.iso8601])
        let expected: [SQLiteValue?] = [
            .integer(1), nil, .integer(-2500), .integer(15), nil, .integer(15), .integer(2), .integer(0), nil,
            .integer(1000), nil,
        ]
        #expect(stored == expected)
    }

    /// Migrates a string attribute holding `texts` to `type` under `reject` and compares each text's outcome with the
    /// importer's conversion of the same text.
    static func compare(_ texts: [String], to type: AttributeType, formats: [DateFormat]) async throws {
        let stored = try await migrate(texts, to: type, formats: formats)
        let converter = try FieldConverter(type: type, options: ConversionOptions(dateFormats: formats))
        for (text, migrated) in zip(texts, stored) {
            let imported = converter.convert(text)
            let outcome: Converted =
                switch migrated {
                case nil: .failure(.invalidValue)
                case .integer(let value)?: .integer(value)
                case .real(let value)?: .real(value)
                case .text(let value)?: .text(value)
                case .blob(let value)?: .blob(value)
                case .null?: .null
                }
            if case .failure = imported {
                #expect(migrated == nil, "\(text.debugDescription): an import refuses it, the migration stored it")
            } else {
                #expect(outcome == imported, "\(text.debugDescription)")
            }
        }
    }

    /// The stored value each text becomes when a string attribute holding them turns `type` (`nil`: rejected).
    static func migrate(_ texts: [String], to type: AttributeType, formats: [DateFormat]) async throws
        -> [SQLiteValue?]
    {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let container = PersistentContainer(
            name: "Agreement",
            model: try ManagedObjectModel(yaml: model.replacingOccurrences(of: "TYPE", with: "string")),
            storeDescription: PersistentStoreDescription(path: path))
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            for (index, text) in texts.enumerated() {
                let product = context.insertObject(entityName: "Product")
                product["sku"] = String(format: "%03d", index)
                product["value"] = text
            }
            try context.save()
        }
        var migrator = StoreMigrator(storePath: path)
        migrator.dateFormats = formats
        let plan = try migrator.plan(
            to: ManagedObjectModel(yaml: model.replacingOccurrences(of: "TYPE", with: type.name)), policy: .reject)
        try migrator.migrate(to: plan, allowsDestructiveChanges: true)
        let connection = try Connection(path: path, mode: .readOnly)
        var values: [String: SQLiteValue] = [:]
        for row in try connection.prepare("SELECT sku, value FROM Product").fetchAll() {
            if let sku = row[0].text { values[sku] = row[1] }
        }
        return texts.indices.map { values[String(format: "%03d", $0)] }
    }
}
