import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Batch update on a real store file: predicates, constants and expressions, `_opt`, results and errors.
struct BatchUpdateTests {
    /// Products 1 A-1 (qty 5, price 10, weight 1.5), 2 A-2 (qty 0, price 2.5), 3 B-1 (qty 3, no price), in
    /// categories Coffee (1) and Tea (2).
    private func catalog() async throws -> BatchTestFixture {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            """
            INSERT INTO Category (_pk, _ent, name) VALUES (1, {Category}, 'Coffee'), (2, {Category}, 'Tea');
            INSERT INTO Product (_pk, _ent, sku, name, price, quantity, weight, active, category) VALUES
                (1, {Product}, 'A-1', 'Espresso', '10', 5, 1.5, 1, 1),
                (2, {Product}, 'A-2', 'Latte', '2.5', 0, NULL, 1, 1),
                (3, {Product}, 'B-1', 'Assam', NULL, 3, 0.5, 1, 2);
            """)
        return fixture
    }

    @Test func aConstantIsWrittenToTheMatchingRowsOnlyAndBumpsTheirVersion() async throws {
        let fixture = try await catalog()
        let request = BatchUpdateRequest(
            entityName: "Product", predicate: try FetchPredicate(format: "quantity > 0"),
            propertiesToUpdate: ["name": .constant(.string("In stock")), "active": .constant(.boolean(false))],
            resultType: .updatedObjectsCount)

        let result = try await fixture.store.execute(request)

        #expect(result.result == .count(2) && result.updatedCount == 2)
        #expect(
            try fixture.rows("SELECT _pk, name, active, _opt FROM Product ORDER BY _pk") == [
                [.integer(1), .text("In stock"), .integer(0), .integer(2)],
                [.integer(2), .text("Latte"), .integer(1), .integer(1)],
                [.integer(3), .text("In stock"), .integer(0), .integer(2)],
            ])
    }

    @Test func aPredicateThroughARelationshipSelectsRowsAndObjectIDsAreReturned() async throws {
        let fixture = try await catalog()
        let request = BatchUpdateRequest(
            entityName: "Product", predicate: try FetchPredicate(format: "category.name == %@", "Coffee"),
            propertiesToUpdate: ["quantity": .keyPath("quantity") + 10], resultType: .updatedObjectIDs)

        let result = try await fixture.store.execute(request)

        #expect(result.objectIDs == [fixture.id("Product", 1), fixture.id("Product", 2)])
        #expect(
            try fixture.rows("SELECT quantity FROM Product ORDER BY _pk") == [
                [.integer(15)], [.integer(10)], [.integer(3)],
            ]
        )
    }

    @Test func expressionsComputeFromTheRowsOwnValues() async throws {
        let fixture = try await catalog()
        let before = Date().timeIntervalSince1970
        let request = BatchUpdateRequest(
            entityName: "Product",
            propertiesToUpdate: [
                "price": .keyPath("price") * 1.1,
                "quantity": .keyPath("quantity") - 1,
                "weight": .keyPath("weight") * 2,
                "name": .keyPath("sku"),
                "updatedAt": .now,
            ])

        let result = try await fixture.store.execute(request)
        let after = Date().timeIntervalSince1970

        #expect(result.result == .status(true))
        // Decimals are computed exactly: 10 × 1.1 is 11, 2.5 × 1.1 is 2.75, not 2.7500000000000004.
        let rows = try fixture.rows("SELECT price, quantity, weight, name, _opt FROM Product ORDER BY _pk")
        #expect(
            rows == [
                [.text("11"), .integer(4), .real(3), .text("A-1"), .integer(2)],
                [.text("2.75"), .integer(-1), .null, .text("A-2"), .integer(2)],
                [.null, .integer(2), .real(1), .text("B-1"), .integer(2)],
            ])
        let stamps = try fixture.rows("SELECT DISTINCT updatedAt FROM Product").compactMap { $0[0].real }
        #expect(stamps.count == 1)
        #expect(stamps.allSatisfy { $0 >= before && $0 <= after })
    }

    @Test func integerArithmeticWithADoubleIsTruncatedAndDivisionIsExact() async throws {
        let fixture = try await catalog()
        _ = try await fixture.store.execute(
            BatchUpdateRequest(
                entityName: "Product", predicate: try FetchPredicate(format: "sku == 'A-1'"),
                propertiesToUpdate: ["quantity": .keyPath("quantity") * 1.5, "weight": .keyPath("quantity") / 2]))

        #expect(try fixture.rows("SELECT quantity, weight FROM Product WHERE _pk = 1") == [[.integer(7), .real(2.5)]])
    }

    @Test func valuesAreBoundNotSplicedIntoTheSQL() async throws {
        let fixture = try await catalog()
        let hostile = "O'Brien\"; DROP TABLE Product; --"
        _ = try await fixture.store.execute(
            BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["name": .constant(.string(hostile))]))

        #expect(try fixture.rows("SELECT DISTINCT name FROM Product") == [[.text(hostile)]])
    }

    @Test func subEntitiesAreIncludedUnlessExcluded() async throws {
        let fixture = try await BatchTestFixture.make()
        try fixture.seed(
            "INSERT INTO Vehicle (_pk, _ent, vin, wheels) VALUES (1, {Vehicle}, 'V', 4), (2, {Truck}, 'T', 6)")

        let own = try await fixture.store.execute(
            BatchUpdateRequest(
                entityName: "Vehicle", propertiesToUpdate: ["wheels": .keyPath("wheels") + 1],
                includesSubentities: false, resultType: .updatedObjectIDs))
        #expect(own.objectIDs == [fixture.id("Vehicle", 1)])

        let all = try await fixture.store.execute(
            BatchUpdateRequest(
                entityName: "Vehicle", propertiesToUpdate: ["wheels": .keyPath("wheels") + 1],
                resultType: .updatedObjectIDs))
        #expect(all.objectIDs == [fixture.id("Vehicle", 1), fixture.id("Truck", 2)])
        #expect(
            try fixture.rows("SELECT wheels, _opt FROM Vehicle ORDER BY _pk") == [
                [.integer(6), .integer(3)], [.integer(7), .integer(2)],
            ])
    }

    @Test func aNewValueThatCollidesWithAConstraintFailsTheWholeUpdate() async throws {
        let fixture = try await catalog()
        await #expect {
            try await fixture.store.execute(
                BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["sku": .constant(.string("SAME"))]))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .constraintConflict && error.message.contains("batch update of Product")
                && error.message.contains("(sku)")
        }
        #expect(try fixture.count("Product", where: "sku = 'SAME' OR _opt <> 1") == 0)
    }

    @Test func requestsThatDoNotFitTheModelAreRefused() async throws {
        let fixture = try await catalog()
        let cases: [([String: BatchUpdateExpression], String)] = [
            ([:], "propertiesToUpdate is empty"),
            (["colour": .constant(.string("red"))], "no stored attribute 'colour'"),
            (["category": .constant(.integer(2))], "'category' is a relationship"),
            (["quantity": .constant(.string("7"))], "'quantity' is an integer32 attribute; it cannot take a string"),
            (["name": .keyPath("quantity") + 1], "'name' is a string attribute; the expression gives an integer"),
            (["quantity": .keyPath("name") * 2], "* cannot combine a value of type string with an integer"),
            (["price": .keyPath("category.name")], "leaves the object"),
            (["updatedAt": .now * 2], "* cannot combine a date with an integer"),
        ]
        for (properties, text) in cases {
            await #expect {
                try await fixture.store.execute(
                    BatchUpdateRequest(entityName: "Product", propertiesToUpdate: properties))
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.code == .invalidBatchRequest && error.message.contains(text)
            }
        }
        #expect(try fixture.count("Product", where: "_opt <> 1") == 0)
    }
}
