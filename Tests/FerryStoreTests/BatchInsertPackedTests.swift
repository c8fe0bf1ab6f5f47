import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Batch insert from ``PackedRows``: cells bound in their stored form, checked against the attributes.
struct BatchInsertPackedTests {
    private static func row(_ rows: inout PackedRows, sku: StaticString, price: StaticString?, quantity: Int64) {
        rows.appendText(sku)
        if let price { rows.appendText(price) } else { rows.appendNull() }
        rows.appendInteger(quantity)
        rows.appendReal(1_700_000_000.5)
        [UInt8]([9, 8]).withUnsafeBytes { rows.appendBlob($0) }
        rows.endRow()
    }

    @Test func packedRowsAreStoredAsTheirCellsWithDefaultsForTheRest() async throws {
        let fixture = try await BatchTestFixture.make()
        var rows = PackedRows(columns: ["sku", "price", "quantity", "updatedAt", "photo"])
        Self.row(&rows, sku: "P-1", price: "9.95", quantity: 3)
        Self.row(&rows, sku: "P-2", price: nil, quantity: 0)

        let result = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Product", packedRows: rows, resultType: .count), mergePolicy: .error)

        #expect(result.insertedCount == 2)
        let stored = try fixture.rows("SELECT sku, price, quantity, updatedAt, photo, active FROM Product ORDER BY sku")
        #expect(
            stored == [
                [.text("P-1"), .text("9.95"), .integer(3), .real(1_700_000_000.5), .blob([9, 8]), .integer(1)],
                [.text("P-2"), .null, .integer(0), .real(1_700_000_000.5), .blob([9, 8]), .integer(1)],
            ])
    }

    @Test func upsertFromPackedRowsChangesOnlyTheGivenColumns() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            "INSERT INTO Product (_ent, _opt, sku, name, quantity) VALUES (\(fixture.ent("Product")), 1, 'P-1', 'Kept', 5)"
        )
        var rows = PackedRows(columns: ["sku", "quantity"])
        rows.appendText("P-1")
        rows.appendInteger(7)
        rows.endRow()

        let result = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Product", packedRows: rows), mergePolicy: .mergeByPropertyObjectTrump)

        #expect(result.updatedCount == 1 && result.insertedCount == 0)
        #expect(
            try fixture.rows("SELECT name, quantity, _opt FROM Product") == [[.text("Kept"), .integer(7), .integer(2)]])
    }

    /// An upsert in key order, as the importer sends it: new keys, stored keys, a key given twice (new, then
    /// again), a stored key given twice, and a row that changes nothing.
    private static func upsertRows() -> PackedRows {
        var rows = PackedRows(columns: ["sku", "name", "quantity"])
        for (sku, name, quantity) in [
            ("P-0", "new", 1), ("P-1", "first", 2), ("P-1", "second", 3), ("P-2", "Same", 4), ("P-3", "new", 5),
            ("P-3", "again", 6), ("P-4", "changed", 7),
        ] as [(String, String, Int64)] {
            for var text in [sku, name] { text.withUTF8 { rows.appendText(UnsafeRawBufferPointer($0)) } }
            rows.appendInteger(quantity)
            rows.endRow()
        }
        return rows
    }

    private static func seedUpsertTargets(_ fixture: BatchTestFixture) throws {
        let ent = fixture.ent("Product")
        // Stored in the opposite of key order, so the second pass's table order differs from the rows' order.
        try fixture.seed(
            "INSERT INTO Product (_pk, _ent, _opt, sku, name, quantity) VALUES (1, \(ent), 1, 'P-4', 'old', 9), "
                + "(2, \(ent), 1, 'P-2', 'Same', 4), (3, \(ent), 1, 'P-1', 'old', 9)")
    }

    @Test func anUpsertInTableOrderEndsAsTheOnePassUpsertDoes() async throws {
        // Counts and object IDs take the one-pass upsert (object IDs are listed in the rows' order); a count
        // takes the two passes. Both must leave the same rows, versions and history.
        var outcomes: [(result: BatchInsertResult, rows: [[SQLiteValue]])] = []
        for resultType in [BatchInsertRequest.ResultType.objectIDs, .count] {
            let fixture = try await BatchTestFixture.make()
            try Self.seedUpsertTargets(fixture)
            let result = try await fixture.store.execute(
                BatchInsertRequest(entityName: "Product", packedRows: Self.upsertRows(), resultType: resultType),
                mergePolicy: .mergeByPropertyObjectTrump)
            let stored = try fixture.rows("SELECT _pk, sku, name, quantity, _opt FROM Product ORDER BY _pk")
            outcomes.append((result, stored))
        }

        let (onePass, twoPasses) = (outcomes[0], outcomes[1])
        #expect(twoPasses.rows == onePass.rows)
        #expect(
            twoPasses.rows == [
                [.integer(1), .text("P-4"), .text("changed"), .integer(7), .integer(2)],
                [.integer(2), .text("P-2"), .text("Same"), .integer(4), .integer(1)],
                [.integer(3), .text("P-1"), .text("second"), .integer(3), .integer(3)],
                [.integer(4), .text("P-0"), .text("new"), .integer(1), .integer(1)],
                [.integer(5), .text("P-3"), .text("again"), .integer(6), .integer(2)],
            ])
        #expect(twoPasses.result.insertedCount == 2 && onePass.result.insertedCount == 2)
        #expect(twoPasses.result.updatedCount == 4 && onePass.result.updatedCount == 4)
        // The stores differ (so do their identifiers); the keys must not.
        for changes in [\RemoteChanges.insertedObjectIDs, \.updatedObjectIDs] {
            #expect(
                twoPasses.result.changes[keyPath: changes].map(\.primaryKey).sorted()
                    == onePass.result.changes[keyPath: changes].map(\.primaryKey).sorted())
        }
        #expect(twoPasses.result.changes.updatedObjectIDs.map(\.primaryKey).sorted() == [1, 3, 5])
    }

    @Test func aCellOfTheWrongStorageClassFailsTheRequestAndWritesNothing() async throws {
        let fixture = try await BatchTestFixture.make()
        var rows = PackedRows(columns: ["sku", "quantity"])
        rows.appendText("P-1")
        rows.appendInteger(1)
        rows.endRow()
        rows.appendText("P-2")
        rows.appendText("seven")
        rows.endRow()

        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.execute(
                BatchInsertRequest(entityName: "Product", packedRows: rows), mergePolicy: .error)
        }
        #expect(error?.code == .invalidBatchRequest)
        #expect(error?.message.contains("row 2") == true)
        #expect(error?.message.contains("'quantity'") == true)
        #expect(try fixture.rows("SELECT count(*) FROM Product") == [[.integer(0)]])
    }

    @Test func anIntegerOutsideTheAttributesRangeIsRefused() async throws {
        let fixture = try await BatchTestFixture.make()
        var rows = PackedRows(columns: ["sku", "quantity"])
        rows.appendText("P-1")
        rows.appendInteger(Int64(Int32.max) + 1)
        rows.endRow()

        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.execute(
                BatchInsertRequest(entityName: "Product", packedRows: rows), mergePolicy: .error)
        }
        #expect(error?.message.contains("outside the range") == true)
    }

    @Test func nullInANonOptionalAttributeIsRefused() async throws {
        let fixture = try await BatchTestFixture.make()
        var rows = PackedRows(columns: ["sku"])
        rows.appendNull()
        rows.endRow()

        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.execute(
                BatchInsertRequest(entityName: "Product", packedRows: rows), mergePolicy: .error)
        }
        #expect(error?.code == .missingMandatoryProperty)
    }

    @Test func aToOneRelationshipColumnTakesTheDestinationsPrimaryKey() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            "INSERT INTO Category (_pk, _ent, _opt, name) VALUES (7, \(fixture.ent("Category")), 1, 'Tea')")
        var rows = PackedRows(columns: ["sku", "category"])
        rows.appendText("P-1")
        rows.appendText("Tea")  // a natural key first, resolved to a primary key later
        rows.endRow()
        rows.replaceCell(row: 0, column: 1, with: .integer(7))

        _ = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Product", packedRows: rows), mergePolicy: .error)

        #expect(try fixture.rows("SELECT sku, category FROM Product") == [[.text("P-1"), .integer(7)]])
        let dictionaries = BatchInsertRequest(
            entityName: "Product", objects: [["sku": .string("P-2"), "category": .integer(7)]])
        let refused = await #expect(throws: StoreError.self) {
            try await fixture.store.execute(dictionaries, mergePolicy: .error)
        }
        #expect(refused?.message.contains("relationship") == true)
    }

    @Test func discardingTheOpenRowDropsItsCellsAndBytes() {
        var rows = PackedRows(columns: ["sku", "name"])
        rows.appendText("A")
        rows.appendText("kept")
        rows.endRow()
        rows.appendText("B")
        rows.discardOpenRow()
        rows.appendText("C")
        rows.appendText(capacity: 8) { buffer in
            for (index, byte) in "made".utf8.enumerated() { buffer[index] = byte }
            return 4
        }
        rows.endRow()

        #expect(rows.count == 2)
        #expect(rows.bytes == Array("AkeptCmade".utf8))
        #expect(rows.cell(row: 1, column: 1) == .text(offset: 6, count: 4))
        #expect(rows.withBytes(of: rows.cell(row: 1, column: 1)) { Array($0) } == Array("made".utf8))
    }

    @Test(arguments: [
        [4, 2, 0, 1, 3, 5],  // a permutation of several cycles
        [0, 1, 2, 3, 4, 5],  // unchanged
        [5, 3, 1],  // a subset, in another order
        [1, 2, 4],  // a subset in order, as when refused rows are taken out
        [],
    ])
    func reorderingKeepsTheRowsAtTheOrderInPlace(order: [Int]) {
        var rows = PackedRows(columns: ["sku", "quantity"])
        for row in 0..<6 {
            rows.appendText(capacity: 4) { buffer in
                for (index, byte) in "R-\(row)".utf8.enumerated() { buffer[index] = byte }
                return 3
            }
            rows.appendInteger(Int64(row * 10))
            rows.endRow()
        }

        rows.reorder(order)

        #expect(rows.count == order.count)
        #expect(rows.cells.count == order.count * 2)
        for (position, original) in order.enumerated() {
            #expect(rows.withBytes(of: rows.cell(row: position, column: 0)) { String(decoding: $0, as: UTF8.self) }
                == "R-\(original)")
            #expect(rows.cell(row: position, column: 1) == .integer(Int64(original * 10)))
        }
    }
}
