import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// Batch updates keep the model's rules (non-optional, bounds, lengths, patterns, narrow integers, decimal precision:
/// a clear error and nothing written), and touch only the rows whose values they change (counts, versions and
/// history).
struct BatchUpdateRulesTests {
    /// Products 1 A-1 (qty 5, active), 2 A-2 (qty 0, active), 3 B-1 (qty 3, inactive).
    private func catalog() async throws -> BatchTestFixture {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            """
            INSERT INTO Product (_pk, _ent, sku, name, price, quantity, active) VALUES
                (1, {Product}, 'A-1', 'Espresso', '10', 5, 1),
                (2, {Product}, 'A-2', 'Latte', '2.5', 0, 1),
                (3, {Product}, 'B-1', NULL, NULL, 3, 0);
            """)
        return fixture
    }

    private static let versions = "SELECT _pk, sku, quantity, _opt FROM Product ORDER BY _pk"

    @Test func nilForANonOptionalAttributeFailsNamingItAndWritesNothing() async throws {
        let fixture = try await catalog()
        let before = try fixture.rows(Self.versions)
        let request = BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["sku": .constant(nil)])
        let error = await #expect(throws: ValidationError.self) { try await fixture.store.execute(request) }
        #expect(error?.code == .missingMandatoryProperty)
        #expect(error?.entity == "Product" && error?.key == "sku")
        #expect(try fixture.rows(Self.versions) == before)
    }

    @Test func anExpressionThatGivesNilForANonOptionalAttributeOnOneRowFailsTheWholeUpdate() async throws {
        let fixture = try await catalog()
        let before = try fixture.rows(Self.versions)
        // B-1 has no name: copying it into sku would leave that row without one.
        let request = BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["sku": .keyPath("name")])
        let error = await #expect(throws: ValidationError.self) { try await fixture.store.execute(request) }
        #expect(error?.code == .missingMandatoryProperty && error?.objectDescription == "Product/p3")
        #expect(try fixture.rows(Self.versions) == before)
    }

    @Test func aValueOutsideItsIntegerTypeFailsAndWritesNothing() async throws {
        let fixture = try await catalog()
        let before = try fixture.rows(Self.versions)
        // 5 × 10⁹ does not fit the integer32 quantity of A-1.
        let request = BatchUpdateRequest(
            entityName: "Product", propertiesToUpdate: ["quantity": .keyPath("quantity") * 1_000_000_000])
        let error = await #expect(throws: ValidationError.self) { try await fixture.store.execute(request) }
        #expect(error?.code == .numberTooLarge && error?.key == "quantity")
        #expect(try fixture.rows(Self.versions) == before)
    }

    @Test func boundsLengthsAndPatternsAreCheckedOnTheNewValues() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Reading",
                attributes: [
                    AttributeDescription(
                        name: "label", type: .string, isOptional: false, minLength: 2, maxLength: 5,
                        regularExpression: "[a-z]+"),
                    AttributeDescription(name: "level", type: .integer64, minValue: 0, maxValue: 10),
                    AttributeDescription(name: "ratio", type: .decimal, minValue: 0.5),
                    AttributeDescription(name: "takenAt", type: .date, maxValue: 1_000_000_000),
                    AttributeDescription(name: "amount", type: .decimal, decimalPrecision: 5, decimalScale: 2),
                ])
        ])
        let path = folder.appendingPathComponent("readings.sqlite").path
        let store = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
        _ = try await store.execute(
            BatchInsertRequest(
                entityName: "Reading", columns: ["label", "level", "ratio", "takenAt", "amount"],
                rows: [
                    [.string("ab"), .integer(4), .decimal(1), .date(Date(timeIntervalSince1970: 0)), .decimal(100)],
                    [.string("cd"), .integer(9), .decimal(2), .date(Date(timeIntervalSince1970: 0)), .decimal(200)],
                ]), mergePolicy: .error)
        let cases: [(String, BatchUpdateExpression, ValidationError.Code)] = [
            ("level", .keyPath("level") + 2, .numberTooLarge),  // 9 + 2 > 10
            ("level", .keyPath("level") - 5, .numberTooSmall),  // 4 - 5 < 0
            ("ratio", .keyPath("ratio") - 1.25, .numberTooSmall),  // 1 - 1.25 < 0.5
            ("takenAt", .now, .dateTooLate),
            ("label", .constant(.string("abcdef")), .stringTooLong),
            ("label", .constant(.string("a")), .stringTooShort),
            ("label", .constant(.string("AB")), .stringPatternMatching),
            ("amount", .keyPath("amount") * 10, .numberTooLarge),  // 2000 has 4 digits before the point, 3 allowed
            ("amount", .constant(.decimal(Decimal(string: "0.125")!)), .managedObjectValidation),  // 3 after it
        ]
        let reader = try Connection(path: path, mode: .readOnly)
        let before = try reader.prepare("SELECT * FROM Reading ORDER BY _pk").fetchAll().map(\.values)
        for (name, expression, code) in cases {
            let request = BatchUpdateRequest(entityName: "Reading", propertiesToUpdate: [name: expression])
            let error = await #expect(throws: ValidationError.self, "\(name)") { try await store.execute(request) }
            #expect(error?.code == code && error?.key == name, "\(name)")
        }
        #expect(try reader.prepare("SELECT * FROM Reading ORDER BY _pk").fetchAll().map(\.values) == before)
        // Within the rules, the update runs.
        let fine = BatchUpdateRequest(
            entityName: "Reading", propertiesToUpdate: ["level": .keyPath("level") + 1, "label": .constant(.string("xyz"))],
            resultType: .updatedObjectsCount)
        #expect(try await store.execute(fine).result == .count(2))
    }

    @Test func rowsThatAlreadyHoldTheNewValuesAreNeitherCountedNorVersioned() async throws {
        let fixture = try await catalog()
        let unchanged = BatchUpdateRequest(
            entityName: "Product", propertiesToUpdate: ["active": .constant(.boolean(true))],
            resultType: .updatedObjectIDs)
        let result = try await fixture.store.execute(unchanged)
        // Only B-1 was inactive.
        #expect(result.objectIDs == [fixture.id("Product", 3)] && result.updatedCount == 1)
        #expect(try fixture.rows("SELECT _opt FROM Product ORDER BY _pk") == [[.integer(1)], [.integer(1)], [.integer(2)]])

        // Nothing left to change: nothing counted. NULL is a value: setting the NULL name of B-1 to nil is no change.
        let again = BatchUpdateRequest(
            entityName: "Product", propertiesToUpdate: ["active": .constant(.boolean(true))],
            resultType: .updatedObjectsCount)
        #expect(try await fixture.store.execute(again).result == .count(0))
        let noName = BatchUpdateRequest(
            entityName: "Product", predicate: try FetchPredicate(format: "sku == 'B-1'"),
            propertiesToUpdate: ["name": .constant(nil)], resultType: .updatedObjectsCount)
        #expect(try await fixture.store.execute(noName).result == .count(0))

        // Several attributes: a row counts when any of them changes. A-2 already has quantity 0 and price 2.5.
        let several = BatchUpdateRequest(
            entityName: "Product", predicate: try FetchPredicate(format: "sku BEGINSWITH 'A'"),
            propertiesToUpdate: ["quantity": 0, "price": .constant(.decimal(Decimal(string: "2.5") ?? 0))],
            resultType: .updatedObjectIDs)
        #expect(try await fixture.store.execute(several).objectIDs == [fixture.id("Product", 1)])
        #expect(
            try fixture.rows("SELECT _opt FROM Product ORDER BY _pk") == [[.integer(2)], [.integer(1)], [.integer(2)]])
    }

    @Test func historyRecordsOnlyTheRowsAnUpdateChanged() async throws {
        let fixture = try await HistoryFixture()
        _ = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Product", columns: ["sku", "name"],
                rows: [
                    [.string("A-1"), .string("Arabica")], [.string("A-2"), nil], [.string("B-1"), .string("Bourbon")],
                ]), mergePolicy: .error)
        let token = try await fixture.store.currentHistoryToken()
        let update = BatchUpdateRequest(
            entityName: "Product", propertiesToUpdate: ["name": .constant(.string("Arabica"))],
            resultType: .updatedObjectsCount)
        #expect(try await fixture.store.execute(update).result == .count(2))
        let transaction = try await fixture.onlyTransaction(after: token)
        #expect(transaction.changes(of: "Product").map(\.objectID) == [2, 3].map { fixture.id("Product", $0) })

        // An update that changes nothing records no transaction at all.
        let after = try await fixture.store.currentHistoryToken()
        _ = try await fixture.store.execute(update)
        #expect(try await fixture.store.fetchHistory(after: after).isEmpty)
    }
}
