import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Batch insert on a real store file: the three row sources, the stored encodings, and results.
struct BatchInsertTests {
    @Test func dictionariesAreInsertedWithTheEntityVersionOneAndDefaults() async throws {
        let fixture = try await BatchTestFixture.make()
        let code = UUID()
        let released = Date(timeIntervalSince1970: 1_700_000_000.5)
        let request = BatchInsertRequest(
            entityName: "Product",
            objects: [
                [
                    "sku": .string("A-1"), "price": .decimal(Decimal(string: "9.95") ?? 0), "weight": .double(0.25),
                    "updatedAt": .date(released), "code": .uuid(code), "photo": .binary(Data([1, 2, 3])),
                ],
                ["sku": .string("A-2"), "name": nil, "quantity": .integer(7), "active": .boolean(false)],
            ], resultType: .count)

        let result = try await fixture.store.execute(request, mergePolicy: .error)

        #expect(result.result == .count(2))
        #expect(result.insertedCount == 2 && result.updatedCount == 0)
        let rows = try fixture.rows(
            "SELECT _ent, _opt, sku, name, price, quantity, weight, active, isFavorite, updatedAt, code, photo "
                + "FROM Product ORDER BY sku")
        let product = SQLiteValue.integer(Int64(fixture.ent("Product")))
        #expect(
            rows[0] == [
                product, .integer(1), .text("A-1"), .null, .text("9.95"), .integer(0), .real(0.25), .integer(1),
                .integer(0), .real(1_700_000_000.5), .text(code.uuidString.lowercased()), .blob([1, 2, 3]),
            ])
        #expect(
            rows[1] == [
                product, .integer(1), .text("A-2"), .null, .null, .integer(7), .null, .integer(0), .integer(0), .null,
                .null, .null,
            ])
    }

    @Test func whatBatchInsertStoresIsWhatFetchesDecode() async throws {
        let fixture = try await BatchTestFixture.make()
        let price = Decimal(string: "12345678901234567890.123456789") ?? 0
        let day = Date(timeIntervalSince1970: 86_400)
        let values: [String: AttributeValue?] = [
            "sku": .string("X"), "price": .decimal(price), "updatedAt": .date(day), "weight": .integer(2),
        ]
        _ = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Product", objects: [values]), mergePolicy: .error)

        var fetch = FetchRequest(entityName: "Product", resultType: .dictionary)
        fetch.propertiesToFetch = ["price", "updatedAt", "weight", "active"]
        let fetched = try await fixture.store.fetch(fetch)
        #expect(
            fetched
                == .dictionaries([
                    ["price": .decimal(price), "updatedAt": .date(day), "weight": .double(2), "active": .boolean(true)]
                ]))
    }

    @Test func aHandlerIsCalledUntilItReturnsTrueAndThatCallsRowIsDiscarded() async throws {
        let fixture = try await BatchTestFixture.make()
        let counter = BatchCallCounter()
        let request = BatchInsertRequest(entityName: "Product", resultType: .count) { row in
            counter.calls += 1
            row["sku"] = .string("S-\(counter.calls)")
            return counter.calls == 4
        }

        let result = try await fixture.store.execute(request, mergePolicy: .error)

        #expect(counter.calls == 4)
        #expect(result.result == .count(3))
        #expect(
            try fixture.rows("SELECT sku FROM Product ORDER BY sku") == [
                [.text("S-1")], [.text("S-2")], [.text("S-3")],
            ])
    }

    @Test func positionalRowsAreBoundRowByRow() async throws {
        let fixture = try await BatchTestFixture.make()
        let request = BatchInsertRequest(
            entityName: "Listing", columns: ["sku", "storeCode", "price"],
            rows: [
                [.string("A"), .string("S1"), .double(1.5)], [.string("B"), .string("S1"), nil],
                [.string("A"), .string("S2"), .integer(3)],
            ], resultType: .count)

        let result = try await fixture.store.execute(request, mergePolicy: .error)

        #expect(result.count == 3)
        #expect(
            try fixture.rows("SELECT storeCode, sku, price, _opt FROM Listing ORDER BY _pk") == [
                [.text("S1"), .text("A"), .real(1.5), .integer(1)], [.text("S1"), .text("B"), .null, .integer(1)],
                [.text("S2"), .text("A"), .real(3), .integer(1)],
            ])
    }

    @Test func aPositionalRowOfTheWrongLengthFailsTheWholeRequest() async throws {
        let fixture = try await BatchTestFixture.make()
        let request = BatchInsertRequest(
            entityName: "Listing", columns: ["storeCode", "sku"],
            rows: [[.string("S1"), .string("A")], [.string("S1")]])

        await #expect {
            try await fixture.store.execute(request, mergePolicy: .error)
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .invalidBatchRequest && error?.message.contains("row 2 has 1 values") == true
        }
        #expect(try fixture.count("Listing") == 0)
    }

    @Test func statusAndObjectIDResultsReportTheRowsWritten() async throws {
        let fixture = try await BatchTestFixture.make()
        let status = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Category", objects: [["name": .string("Tea")]]), mergePolicy: .error)
        #expect(status.result == .status(true))
        #expect(status.objectIDs == nil && status.count == nil)

        let ids = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Category", objects: [["name": .string("Coffee")], ["name": .string("Cocoa")]],
                resultType: .objectIDs),
            mergePolicy: .error)

        let keys = try fixture.rows("SELECT _pk FROM Category WHERE name <> 'Tea' ORDER BY _pk").compactMap {
            $0[0].integer
        }
        #expect(keys.count == 2)
        #expect(ids.objectIDs == keys.map { fixture.id("Category", $0) })
    }

    @Test func newRowsNeverTakeKeysAContextHasReservedAndUpsertsTakeNone() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed("INSERT INTO Category (_pk, _ent, name) VALUES (1, {Category}, 'Tea')")
        let store = fixture.store
        let reserved = try store.writer.sync { try store.primaryKeys.reserve(3, in: "Category", on: $0) }
        #expect(reserved == 2)

        let result = try await store.execute(
            BatchInsertRequest(
                entityName: "Category",
                objects: [
                    ["name": .string("Tea"), "rank": .integer(2)], ["name": .string("Coffee")],
                    ["name": .string("Cocoa")],
                ],
                resultType: .objectIDs),
            mergePolicy: .mergeByPropertyObjectTrump)

        #expect(result.objectIDs == [1, 5, 6].map { fixture.id("Category", $0) })
        #expect(
            try fixture.rows("SELECT _pk, name, rank FROM Category ORDER BY _pk") == [
                [.integer(1), .text("Tea"), .integer(2)], [.integer(5), .text("Coffee"), .integer(0)],
                [.integer(6), .text("Cocoa"), .integer(0)],
            ])
    }

    @Test func aSubEntityGetsItsOwnEntityNumberAndObjectIDs() async throws {
        let fixture = try await BatchTestFixture.make()
        let result = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Truck", objects: [["vin": .string("T1"), "wheels": .integer(6), "payload": .double(9)]],
                resultType: .objectIDs),
            mergePolicy: .error)

        #expect(try fixture.value("SELECT _ent FROM Vehicle WHERE vin = 'T1'") == .integer(Int64(fixture.ent("Truck"))))
        #expect(result.objectIDs?.map(\.entityName) == ["Truck"])
    }

    @Test func requestsThatDoNotFitTheModelAreRefusedBeforeWriting() async throws {
        let fixture = try await BatchTestFixture.make()
        let cases: [(BatchInsertRequest, StoreError.Code, String)] = [
            (BatchInsertRequest(entityName: "Nope", objects: []), .invalidBatchRequest, "no entity 'Nope'"),
            (
                BatchInsertRequest(entityName: "Product", objects: [["sku": .string("A"), "colour": .string("red")]]),
                .invalidBatchRequest, "no attribute 'colour'"
            ),
            (
                BatchInsertRequest(entityName: "Product", objects: [["sku": .string("A"), "category": .integer(1)]]),
                .invalidBatchRequest, "'category' is a relationship"
            ),
            (
                BatchInsertRequest(entityName: "Product", objects: [["sku": .string("A"), "scratch": .string("x")]]),
                .invalidBatchRequest, "'scratch' is transient"
            ),
            (
                BatchInsertRequest(entityName: "Product", objects: [["sku": .string("A"), "quantity": .string("7")]]),
                .invalidBatchRequest, "row 1 gives a string for 'quantity', which is an integer32 attribute"
            ),
            (
                BatchInsertRequest(entityName: "Product", objects: [["name": .string("no sku")]]),
                .missingMandatoryProperty, "row 1 gives no value for the non-optional attribute 'sku'"
            ),
            (
                BatchInsertRequest(entityName: "Product", objects: [["sku": nil]]), .missingMandatoryProperty,
                "row 1 gives nil for the non-optional attribute 'sku'"
            ),
        ]
        for (request, code, text) in cases {
            await #expect {
                try await fixture.store.execute(request, mergePolicy: .mergeByPropertyObjectTrump)
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.code == code && error.message.contains(text)
            }
        }
        await #expect {
            try await fixture.store.execute(
                BatchInsertRequest(entityName: "Product", objects: [["sku": .string("A")]]), mergePolicy: .overwrite)
        } throws: { error in
            (error as? StoreError)?.code == .unsupportedRequest
        }
        #expect(try fixture.count("Product") == 0)
    }
}
