import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Aggregate key paths (`products.price.@sum`…), `SUBQUERY(…).@count` and object operands (`category == %@`), each
/// asked twice of the same objects: inserted and not saved (the in-memory evaluator answers), then saved (the SQL
/// answers). Both answers must be the expected one.
struct PredicateCollectionTests {
    /// The catalog the tests ask: categories (rank) with their products (price), products with tags.
    ///
    /// | category | rank | products (price) |
    /// |---|---|---|
    /// | Cocoa | 1 | P3 "cocoa" (nil) |
    /// | Coffee | 0 | P2 "Cake" (2, tags black green), P5 nil name (1) |
    /// | Mate | 9 | none |
    /// | Tea | 2 | P1 "Café" (4.5, green), P4 "Chai tea" (10, black) |
    ///
    /// and P6 "Tea" (4.75, green) without a category.
    struct Catalog {
        var objects: [String: ManagedObject] = [:]

        init(in context: ManagedObjectContext) {
            for (name, rank) in [("Cocoa", 1), ("Coffee", 0), ("Mate", 9), ("Tea", 2)] {
                objects[name] = context.insertCategory(name, rank: rank)
            }
            for label in ["green", "black"] {
                let tag = context.insertObject(entityName: "Tag")
                tag["label"] = label
                objects[label] = tag
            }
            let rows: [(String, String?, Decimal?, String?, [String])] = [
                ("P1", "Café", 4.5, "Tea", ["green"]), ("P2", "Cake", 2, "Coffee", ["black", "green"]),
                ("P3", "cocoa", nil, "Cocoa", []), ("P4", "Chai tea", 10, "Tea", ["black"]),
                ("P5", nil, 1, "Coffee", []), ("P6", "Tea", 4.75, nil, ["green"]),
            ]
            for (sku, name, price, category, tags) in rows {
                let product = context.insertProduct(
                    sku, name: name, price: price, category: category.flatMap { objects[$0] })
                for tag in tags.compactMap({ objects[$0] }) { product.add(tag, toKey: "tags") }
                objects[sku] = product
            }
        }
    }

    /// The names (categories) or SKUs (products) `predicate` fetches from `entity`: first with every object
    /// unsaved, then once saved. The predicate is built again after the save, as object IDs change.
    static func bothAnswers(
        _ entity: String, _ predicate: (Catalog) throws -> FetchPredicate
    ) async throws -> (inMemory: [String?], stored: [String?], counted: Int) {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        return try context.performAndWait {
            let catalog = Catalog(in: context)
            let key = entity == "Category" ? "name" : "sku"
            var request = FetchRequest(entityName: entity, sortDescriptors: [FetchSortDescriptor(key: key)])
            request.predicate = try predicate(catalog)
            let inMemory = try context.fetch(request).map { $0[key] as String? }
            let counted = try context.count(for: request)
            try context.save()
            request.predicate = try predicate(catalog)
            let stored = try context.fetch(request).map { $0[key] as String? }
            #expect(try context.count(for: request) == stored.count)
            return (inMemory, stored, counted)
        }
    }

    static func expectBoth(_ entity: String, _ format: String, _ expected: [String]) async throws {
        let answers = try await bothAnswers(entity) { _ in try FetchPredicate(format: format) }
        #expect(answers.inMemory == expected, "in memory: \(format)")
        #expect(answers.stored == expected, "in SQL: \(format)")
        #expect(answers.counted == expected.count, "count: \(format)")
    }

    @Test(arguments: [
        ("products.price.@sum > 8", ["Tea"]),
        ("products.price.@sum == 0", ["Cocoa", "Mate"]),
        ("products.price.@sum > rank", ["Coffee", "Tea"]),
        ("products.price.@avg < 2", ["Coffee"]),
        ("products.price.@avg == 7.25", ["Tea"]),
        ("products.price.@avg == nil", ["Cocoa", "Mate"]),
        ("products.price.@min >= 4.5", ["Tea"]),
        ("products.price.@max < 5", ["Coffee"]),
        ("products.price.@max != 10", ["Cocoa", "Coffee", "Mate"]),
        ("products.price.@count == 0", ["Cocoa", "Mate"]),
        ("products.name.@count == 1", ["Cocoa", "Coffee"]),
        ("products.name.@max BEGINSWITH 'C'", ["Coffee", "Tea"]),
        ("products.name.@min ==[c] 'COCOA'", ["Cocoa"]),
        ("products.tags.@count > 0", []),
        ("ANY products.tags.@count == 2", ["Coffee"]),
    ])
    func aggregateKeyPathsAnswerAlikeInMemoryAndInSQL(format: String, expected: [String]) async throws {
        guard format != "products.tags.@count > 0" else {
            // A count of a to-many of a to-many counts per product: it needs ANY (as `ANY products.tags.@count`).
            await #expect(throws: FetchPredicateError.self) {
                _ = try await Self.bothAnswers("Category") { _ in try FetchPredicate(format: format) }
            }
            return
        }
        try await Self.expectBoth("Category", format, expected)
    }

    @Test(arguments: [
        ("SUBQUERY(products, $p, $p.price > 3.5).@count == 2", ["Tea"]),
        ("SUBQUERY(products, $p, $p.price > 3.5 OR $p.name == nil).@count >= 1", ["Coffee", "Tea"]),
        ("SUBQUERY(products, $p, ANY $p.tags.label == 'black').@count == 1", ["Coffee", "Tea"]),
        ("SUBQUERY(products, $p, $p.price < 3 AND $p.category.rank == 0).@count == 2", ["Coffee"]),
        ("SUBQUERY(products, $p, $p.price > 3.5).@count == 0", ["Cocoa", "Coffee", "Mate"]),
        (
            "SUBQUERY(products, $p, SUBQUERY($p.tags, $t, $t.label BEGINSWITH 'g').@count == 1).@count == 1",
            ["Coffee", "Tea"]
        ),
        ("NOT (SUBQUERY(products, $p, $p.name CONTAINS[cd] 'CAFE').@count > 0) AND rank < 5", ["Cocoa", "Coffee"]),
    ])
    func subqueriesAnswerAlikeInMemoryAndInSQL(format: String, expected: [String]) async throws {
        try await Self.expectBoth("Category", format, expected)
    }

    @Test func aggregatesAndSubqueriesWorkFromTheManySideToo() async throws {
        try await Self.expectBoth("Product", "category.products.price.@sum > 8", ["P1", "P4"])
        try await Self.expectBoth("Product", "SUBQUERY(tags, $t, $t.label == 'green').@count == 1", ["P1", "P2", "P6"])
        try await Self.expectBoth(
            "Product", "SUBQUERY(category.products, $p, $p.price > 3.5).@count == 2", ["P1", "P4"])
        // Inside a subquery, SELF is the related object, as $t is.
        try await Self.expectBoth(
            "Product", "SUBQUERY(tags, $t, $t == SELF).@count > 0", ["P1", "P2", "P4", "P6"])
    }

    @Test func objectsCompareWithRelationshipsAndSelf() async throws {
        typealias Case = (name: String, predicate: (Catalog) throws -> FetchPredicate, expected: [String])
        let cases: [Case] = [
            ("to-one ==", { try FetchPredicate(format: "category == %@", .object($0.objects["Tea"]!)) }, ["P1", "P4"]),
            (
                "to-one !=", { try FetchPredicate(format: "category != %@", .object($0.objects["Tea"]!)) },
                ["P2", "P3", "P5", "P6"]
            ),
            (
                "to-one IN",
                {
                    try FetchPredicate(
                        format: "category IN %@", [.object($0.objects["Tea"]!.objectID), .object($0.objects["Cocoa"]!)])
                }, ["P1", "P3", "P4"]
            ),
            (
                "member IN to-many", { try FetchPredicate(format: "%@ IN tags", .object($0.objects["black"]!)) },
                ["P2", "P4"]
            ),
            (
                "ANY to-many ==", { try FetchPredicate(format: "ANY tags == %@", .object($0.objects["green"]!)) },
                ["P1", "P2", "P6"]
            ),
            (
                "NONE to-many ==", { try FetchPredicate(format: "NONE tags == %@", .object($0.objects["green"]!)) },
                ["P3", "P4", "P5"]
            ),
            (
                "SELF IN",
                { try FetchPredicate(format: "SELF IN %@", [.object($0.objects["P5"]!), .object($0.objects["P2"]!)]) },
                ["P2", "P5"]
            ),
            (
                "in a subquery",
                {
                    try FetchPredicate(
                        format: "SUBQUERY(tags, $t, $t != %@).@count == 1", .object($0.objects["black"]!))
                }, ["P1", "P2", "P6"]
            ),
            ("built in Swift", { .keyPath("category") == .object($0.objects["Coffee"]!.objectID) }, ["P2", "P5"]),
        ]
        for testCase in cases {
            let answers = try await Self.bothAnswers("Product", testCase.predicate)
            #expect(answers.inMemory == testCase.expected, "in memory: \(testCase.name)")
            #expect(answers.stored == testCase.expected, "in SQL: \(testCase.name)")
            #expect(answers.counted == testCase.expected.count, "count: \(testCase.name)")
        }
    }

    @Test func aCategoryCountedWithAnUnsavedChangeAnswersAsAfterTheSave() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let catalog = Catalog(in: context)
            try context.save()
            // Move P2 from Coffee to Tea, unsaved: Tea then sums 16.5, Coffee 1.
            catalog.objects["P2"]?.setObject(catalog.objects["Tea"], forKey: "category")
            var request = FetchRequest(entityName: "Category", sortDescriptors: [FetchSortDescriptor(key: "name")])
            request.predicate = try FetchPredicate(format: "products.price.@sum > 2 AND products.@count >= 1")
            #expect(try context.fetch(request).map { $0["name"] as String? } == ["Tea"])
            request.predicate = try FetchPredicate(
                format: "SUBQUERY(products, $p, $p == %@).@count == 1", .object(catalog.objects["P2"]!))
            #expect(try context.fetch(request).map { $0["name"] as String? } == ["Tea"])
            try context.save()
            #expect(try context.fetch(request).map { $0["name"] as String? } == ["Tea"])
        }
    }

    @Test func anObjectOfAnotherEntityIsATypeMismatch() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tag = context.insertObject(entityName: "Tag")
            tag["label"] = "green"
            try context.save()
            let request = FetchRequest(
                entityName: "Product", predicate: try FetchPredicate(format: "category == %@", .object(tag)))
            let error = #expect(throws: FetchPredicateError.self) { try context.fetch(request) }
            #expect(error?.code == .typeMismatch)
            #expect(error?.message.contains("Tag object") == true)
        }
    }

    @Test func aggregatesCompileToCorrelatedSubqueries() throws {
        let schema = StoreSchema(model: ContextFixture.catalogModel())
        let sum = try FetchPredicate(format: "products.price.@sum > 8").sql(for: "Category", in: schema)
        #expect(
            sum.whereClause
                == #"(SELECT COALESCE(SUM(CAST("t1"."price" AS REAL)), 0) FROM "Product" AS "t1" "#
                + #"WHERE "t1"."category" = "t0"."_pk") > ?"#)
        #expect(sum.bindings == [.integer(8)])
        let subquery = try FetchPredicate(format: "SUBQUERY(products, $p, $p.price > 3.5).@count == %d", 2)
            .sql(for: "Category", in: schema)
        #expect(
            subquery.whereClause
                == #"(SELECT COUNT(*) FROM "Product" AS "t1" WHERE "t1"."category" = "t0"."_pk" "#
                + #"AND CAST("t1"."price" AS REAL) > ?) = ?"#)
        #expect(subquery.bindings == [.real(3.5), .integer(2)], "the subquery's value binds before the count's")
    }

    @Test func subqueriesAndAggregatesPrintBackAsTheyParse() throws {
        for format in [
            "SUBQUERY(products, $p, $p.price > 3.5 AND ANY $p.tags.label == \"x\").@count == 2",
            "SUBQUERY(products, $p, SUBQUERY($p.tags, $t, $t.label BEGINSWITH \"g\").@count == 1).@count >= 1",
            "SUBQUERY(tags, $t, $t == SELF).@count > 0", "products.price.@avg < $LIMIT",
        ] {
            let predicate = try FetchPredicate(format: format)
            #expect(predicate.description == format.replacingOccurrences(of: "$t == SELF", with: "$t == $t"))
            #expect(try FetchPredicate(format: predicate.description) == predicate)
        }
        let parsed = try FetchPredicate(format: "SUBQUERY(products, $p, $p.price > $MIN).@count == 1")
        #expect(parsed.variableNames == ["MIN"])
        let filled = parsed.substituting(["MIN": 3, "p": "not the subquery's"])
        #expect(filled.description == "SUBQUERY(products, $p, $p.price > 3).@count == 1")
        let built: FetchPredicate = .subquery("products", "p", try FetchPredicate(format: "price > 3")) == 1
        #expect(built == filled)
    }

    @Test func malformedSubqueriesAreSyntaxErrors() {
        for format in [
            "SUBQUERY(products, $p, $p.price > 1) == 1", "SUBQUERY(products, p, p.price > 1).@count == 1",
            "SUBQUERY(products, $p, SUBQUERY($p.tags, $t, $p.name == 'x').@count == 1).@count == 1",
            "SUBQUERY(products, $p, $p.price > 1).@sum == 1",
        ] {
            #expect(throws: FetchPredicateError.self, "\(format)") { try FetchPredicate(format: format) }
        }
    }

    @Test func aggregatesRefuseWhatTheyCannotApplyTo() {
        let model = ContextFixture.catalogModel()
        for format in ["products.name.@sum > 1", "products.@sum > 1", "products.category.@max == nil"] {
            #expect(throws: FetchPredicateError.self, "\(format)") {
                try FetchPredicate(format: format).validate(forEntity: "Category", in: model)
            }
        }
        #expect(throws: FetchPredicateError.self) {
            try FetchPredicate(format: "SUBQUERY(category, $c, $c.rank > 1).@count == 1")
                .validate(forEntity: "Product", in: model)
        }
    }
}
