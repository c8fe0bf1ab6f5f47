import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Dictionary fetches on a real store: values decoded from their storage encodings, to-one key paths, aggregates
/// with and without groups, and distinct results. Rows are listed on ``FetchRequestFixture``.
struct FetchRequestDictionaryTests {
    let fixture: FetchRequestFixture

    init() throws {
        fixture = try FetchRequestFixture()
    }

    func dictionaries(_ configure: (inout FetchRequest) throws -> Void) throws -> [[String: AttributeValue?]] {
        var request = FetchRequest(entityName: "Product", resultType: .dictionary)
        try configure(&request)
        return try fixture.executor.dictionaries(for: request)
    }

    @Test func propertiesDecodeFromTheirStorageEncodingsToTheirAttributeTypes() throws {
        let rows = try dictionaries { request in
            request.predicate = try FetchPredicate(format: "sku IN {'A-1', 'B-2', 'A-3'}")
            request.sortDescriptors = [FetchSortDescriptor(key: "sku")]
            request.propertiesToFetch = [
                "sku", "price", "weight", "quantity", "active", "released", "code", "homepage", "photo",
                "category.name",
            ]
        }
        try #require(rows.count == 3)
        let homepage = try #require(URL(string: "https://example.com/espresso"))
        let espresso: [String: AttributeValue?] = [
            "sku": .string("A-1"), "price": FetchRequestFixture.decimal("0.10"), "weight": .double(0.25),
            "quantity": .integer(10), "active": .boolean(true),
            "released": .date(Date(timeIntervalSince1970: 1_704_067_200)),
            "code": .uuid(FetchRequestFixture.code), "homepage": .uri(homepage),
            "photo": .binary(Data([1, 2])), "category.name": .string("Coffee"),
        ]
        #expect(rows[0] == espresso)
        #expect(rows[0]["price"] == FetchRequestFixture.decimal("0.1"), "0.10 and 0.1 are one decimal")
        #expect(
            rows[0]["price"] != FetchRequestFixture.decimal("0.1000000000000000055511151231257827"),
            "read from the text, not through a double")
        #expect(rows[1]["price"] == FetchRequestFixture.decimal(FetchRequestFixture.bigPrice))
        if case .decimal(let price)?? = rows[1]["price"] {
            #expect("\(price)" == FetchRequestFixture.bigPrice, "no digit lost past a double's precision")
        }
        let assam: [String: AttributeValue?] = [
            "sku": .string("B-2"), "price": FetchRequestFixture.decimal("100"), "weight": .double(1.5),
            "quantity": nil, "active": nil, "released": nil, "code": nil, "homepage": nil, "photo": nil,
            "category.name": .string("Tea"),
        ]
        #expect(rows[2] == assam)
        #expect(rows[2].keys.contains("quantity"), "a nil value keeps its key")
    }

    @Test func withoutPropertiesToFetchEveryStoredAttributeIsFetched() throws {
        let rows = try dictionaries { $0.predicate = try FetchPredicate(format: "sku == 'C-1'") }
        #expect(rows.count == 1)
        #expect(
            Set(rows[0].keys)
                == ["sku", "name", "price", "weight", "quantity", "active", "released", "code", "homepage", "photo"])
        #expect(rows[0]["name"] == .string("Mystery"))
        #expect(rows[0]["price"] == .some(nil))
    }

    @Test func aggregatesAreComputedPerGroupWithExactDecimalSums() throws {
        let rows = try dictionaries { request in
            request.propertiesToGroupBy = ["category.name"]
            request.sortDescriptors = [FetchSortDescriptor(key: "category.name")]
            request.aggregates = [
                FetchAggregate(name: "products", function: .count, keyPath: "SELF"),
                FetchAggregate(name: "total", function: .sum, keyPath: "price"),
                FetchAggregate(name: "units", function: .sum, keyPath: "quantity"),
                FetchAggregate(name: "averagePrice", function: .average, keyPath: "price"),
                FetchAggregate(name: "lastRelease", function: .max, keyPath: "released"),
            ]
        }
        #expect(rows.count == 3)
        #expect(rows.map { $0["category.name"] } == [.some(nil), .string("Coffee"), .string("Tea")])
        #expect(rows.map { $0["products"] } == [.integer(1), .integer(3), .integer(2)])
        #expect(
            rows.map { $0["total"] }
                == [
                    .some(nil), FetchRequestFixture.decimal("12345678901234567902.723456789"),
                    FetchRequestFixture.decimal("102.5"),
                ])
        #expect(rows.map { $0["units"] } == [.integer(7), .integer(15), .integer(3)])
        #expect(rows[2]["averagePrice"] == FetchRequestFixture.decimal("51.25"))
        #expect(
            rows.map { $0["lastRelease"] } == [
                .some(nil), .date(Date(timeIntervalSince1970: 1_717_200_000)), .some(nil),
            ])
    }

    @Test func aggregatesWithoutGroupsGiveOneDictionary() throws {
        let rows = try dictionaries { request in
            request.aggregates = [
                FetchAggregate(name: "count", function: .count, keyPath: "SELF"),
                FetchAggregate(name: "priced", function: .count, keyPath: "price"),
                FetchAggregate(name: "cheapest", function: .min, keyPath: "price"),
                FetchAggregate(name: "dearest", function: .max, keyPath: "price"),
                FetchAggregate(name: "meanWeight", function: .average, keyPath: "weight"),
                FetchAggregate(name: "firstName", function: .min, keyPath: "name"),
            ]
        }
        #expect(
            rows == [
                [
                    "count": .integer(6), "priced": .integer(5), "cheapest": FetchRequestFixture.decimal("0.10"),
                    "dearest": FetchRequestFixture.decimal(FetchRequestFixture.bigPrice), "meanWeight": .double(0.625),
                    "firstName": .string("Cortado"),
                ]
            ])
        let none = try dictionaries { request in
            request.predicate = .falsePredicate
            request.aggregates = [
                FetchAggregate(name: "count", function: .count, keyPath: "SELF"),
                FetchAggregate(name: "total", function: .sum, keyPath: "price"),
            ]
        }
        #expect(none == [["count": .integer(0), "total": nil]])
    }

    @Test func distinctResultsReturnEachDictionaryOnce() throws {
        let names = try dictionaries { request in
            request.propertiesToFetch = ["category.name"]
            request.returnsDistinctResults = true
            request.sortDescriptors = [FetchSortDescriptor(key: "category.name", ascending: false)]
        }
        #expect(
            names == [["category.name": .string("Tea")], ["category.name": .string("Coffee")], ["category.name": nil]])
        let flags = try dictionaries { request in
            request.propertiesToFetch = ["active"]
            request.returnsDistinctResults = true
        }
        #expect(flags == [["active": nil], ["active": .boolean(false)], ["active": .boolean(true)]])
        let all = try dictionaries { $0.propertiesToFetch = ["category.name"] }
        #expect(all.count == 6, "without distinct every object gives a dictionary")
    }

    @Test func anUnknownPropertyKeyPathIsAnErrorNamingTheEntityAndKeyPath() throws {
        #expect {
            try dictionaries { $0.propertiesToFetch = ["sku", "category.title"] }
        } throws: { error in
            let error = error as? FetchRequestError
            return error?.code == .unknownKeyPath && error?.keyPath == "category.title"
                && error?.description
                    == "unknown property to fetch 'category.title' of Product: Category has no attribute or "
                    + "relationship 'title'"
        }
        #expect {
            try dictionaries { $0.aggregates = [FetchAggregate(name: "n", function: .sum, keyPath: "weigth")] }
        } throws: { error in
            (error as? FetchRequestError)?.description.contains("'weigth' of Product") == true
        }
    }

    @Test func aStoredValueOfTheWrongKindIsAnErrorThatDoesNotShowTheValue() throws {
        // INTEGER affinity keeps text that is not a number as TEXT.
        try fixture.connection.execute("UPDATE Product SET quantity = 'secret-ish' WHERE _pk = 1")
        let error = #expect(throws: FetchRequestError.self) {
            try dictionaries { $0.propertiesToFetch = ["quantity"] }
        }
        #expect(error?.code == .undecodableValue)
        #expect(error?.keyPath == "quantity")
        #expect(error?.description == "'quantity' of Product holds TEXT, which is not integer32")
        try fixture.connection.execute("UPDATE Product SET quantity = 10, active = 2 WHERE _pk = 1")
        let flag = #expect(throws: FetchRequestError.self) {
            try dictionaries { $0.propertiesToFetch = ["active"] }
        }
        #expect(flag?.description == "'active' of Product holds an INTEGER, which is not boolean")
    }

    @Test func inconsistentDictionaryRequestsAreInvalid() throws {
        let cases: [(String, (inout FetchRequest) -> Void)] = [
            (
                "ungrouped property",
                {
                    $0.propertiesToFetch = ["sku"]; $0.propertiesToGroupBy = ["category.name"]
                }
            ),
            (
                "property beside aggregates",
                {
                    $0.propertiesToFetch = ["sku"]
                    $0.aggregates = [FetchAggregate(name: "n", function: .count, keyPath: "SELF")]
                }
            ),
            (
                "duplicate name",
                {
                    $0.propertiesToFetch = ["sku"]
                    $0.propertiesToGroupBy = ["sku"]
                    $0.aggregates = [FetchAggregate(name: "sku", function: .count, keyPath: "SELF")]
                }
            ),
            ("sum of strings", { $0.aggregates = [FetchAggregate(name: "n", function: .sum, keyPath: "name")] }),
            ("min of SELF", { $0.aggregates = [FetchAggregate(name: "n", function: .min, keyPath: "SELF")] }),
            (
                "ungrouped sort",
                {
                    $0.propertiesToGroupBy = ["category.name"]
                    $0.sortDescriptors = [FetchSortDescriptor(key: "sku")]
                }
            ),
            (
                "distinct sort on an unfetched key",
                {
                    $0.propertiesToFetch = ["sku"]
                    $0.returnsDistinctResults = true
                    $0.sortDescriptors = [FetchSortDescriptor(key: "name")]
                }
            ),
            (
                "relationship as sort key",
                {
                    $0.propertiesToFetch = ["sku"]
                    $0.sortDescriptors = [FetchSortDescriptor(key: "category")]
                }
            ),
            ("nothing to fetch", { $0.propertiesToFetch = [] }),
        ]
        for (label, configure) in cases {
            let error = #expect(throws: FetchRequestError.self, "\(label)") { try dictionaries(configure) }
            #expect(error?.code == .invalidRequest, "\(label)")
        }
    }

    @Test func theGroupedQueryBindsOnlyThePredicateAndWindow() throws {
        var request = FetchRequest(
            entityName: "Product", predicate: try FetchPredicate(format: "price > %@", 1), resultType: .dictionary)
        request.propertiesToGroupBy = ["category.name"]
        request.aggregates = [FetchAggregate(name: "total", function: .sum, keyPath: "price")]
        request.fetchLimit = 1
        let query = try request.query(in: fixture.schema)
        #expect(
            query.sql
                == #"SELECT "k1"."name", group_concat("t0"."price", ' ') FROM "Product" AS "t0" "#
                + #"LEFT JOIN "Category" AS "k1" ON "k1"."_pk" = "t0"."category" "#
                + #"WHERE CAST("t0"."price" AS REAL) > ? GROUP BY "k1"."name" ORDER BY "k1"."name" LIMIT ? OFFSET ?"#)
        #expect(query.bindings == [.real(1), .integer(1), .integer(0)])
        #expect(
            try fixture.executor.dictionaries(for: request)
                == [
                    [
                        "category.name": .string("Coffee"),
                        "total": FetchRequestFixture.decimal("12345678901234567902.623456789"),
                    ]
                ])
    }
}
