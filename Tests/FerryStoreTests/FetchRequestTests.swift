import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Fetch requests on a real store: predicate, order, window, sub-entities, counts, object IDs and the SQL's shape.
/// Rows are listed on ``FetchRequestFixture``.
struct FetchRequestTests {
    let fixture: FetchRequestFixture

    init() throws {
        fixture = try FetchRequestFixture()
    }

    @Test func aPredicateSortLimitAndOffsetSelectAWindowOfTheOrderedMatches() throws {
        var request = FetchRequest(
            entityName: "Product", predicate: try FetchPredicate(format: "price > %@", 1),
            sortDescriptors: [FetchSortDescriptor(key: "price", ascending: false)])
        #expect(try fixture.keys(request) == [6, 4, 2, 3])
        request.fetchLimit = 2
        request.fetchOffset = 1
        #expect(try fixture.keys(request) == [4, 2])
        request.fetchLimit = 0
        #expect(try fixture.keys(request) == [4, 2, 3], "an offset without a limit")
        request.fetchOffset = 10
        #expect(try fixture.keys(request) == [])
    }

    @Test func decimalsSortAsNumbersAndNilSortsFirst() throws {
        #expect(try fixture.keys(sortedBy: [FetchSortDescriptor(key: "price")]) == [5, 1, 3, 2, 4, 6])
        #expect(
            try fixture.keys(sortedBy: [FetchSortDescriptor(key: "price", ascending: false)]) == [6, 4, 2, 3, 1, 5])
    }

    @Test func decimalEqualityAndMembershipAreExactAtEveryLength() throws {
        let big = try #require(Decimal(string: FetchRequestFixture.bigPrice))
        let neighbour = big + (try #require(Decimal(string: "0.000000001")))
        func keys(_ format: String, _ argument: PredicateArgument) throws -> [Int64] {
            try fixture.keys(
                FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: format, argument)))
        }
        #expect(try keys("price == %@", .value(.decimal(big))) == [6])
        #expect(try keys("price == %@", .value(.decimal(neighbour))) == [], "they differ in the 29th digit")
        #expect(try keys("price != %@", .value(.decimal(neighbour))) == [1, 2, 3, 4, 5, 6])
        #expect(try keys("price IN %@", .array([.value(.decimal(neighbour)), .value(.integer(100))])) == [4])
        #expect(try keys("price IN %@", .array([.value(.decimal(big)), .value(.double(0.1))])) == [1, 6])
    }

    @Test func thePrimaryKeyBreaksTiesInBothDirections() throws {
        #expect(try fixture.keys(sortedBy: [FetchSortDescriptor(key: "active")]) == [4, 2, 1, 3, 5, 6])
        #expect(
            try fixture.keys(sortedBy: [FetchSortDescriptor(key: "active", ascending: false)]) == [1, 3, 5, 6, 2, 4])
        #expect(try fixture.keys(sortedBy: []) == [1, 2, 3, 4, 5, 6])
    }

    @Test func stringsSortByScalarsUnlessCaseInsensitive() throws {
        #expect(try fixture.keys(sortedBy: [FetchSortDescriptor(key: "name")]) == [6, 3, 1, 5, 4, 2])
        #expect(
            try fixture.keys(sortedBy: [FetchSortDescriptor(key: "name", comparison: .caseInsensitive)])
                == [4, 6, 3, 1, 2, 5])
    }

    @Test func aToOneKeyPathSortsThroughAJoinEvenWhenThePredicateJoinsItToo() throws {
        let sorts = [
            FetchSortDescriptor(key: "category.name"), FetchSortDescriptor(key: "name", comparison: .caseInsensitive),
        ]
        #expect(try fixture.keys(sortedBy: sorts) == [5, 6, 1, 2, 4, 3])
        #expect(try fixture.keys("category.name == 'Coffee'", sortedBy: sorts) == [6, 1, 2])
        #expect(
            try fixture.keys("category.name == 'Tea'", sortedBy: [FetchSortDescriptor(key: "category.name")]) == [3, 4])
    }

    @Test func subentitiesAreIncludedUnlessExcluded() throws {
        var request = FetchRequest(entityName: "Employee", resultType: .managedObjectID)
        let ids = try fixture.executor.objectIDs(for: request)
        #expect(ids.map(\.primaryKey) == [2, 3])
        #expect(ids.map(\.entityName) == ["Employee", "Manager"], "each ID names the object's own entity")
        request.includesSubentities = false
        #expect(try fixture.keys(request) == [2])
        #expect(try fixture.keys(FetchRequest(entityName: "Person")) == [1, 2, 3])
        request.entityName = "Person"
        #expect(try fixture.keys(request) == [1])
        #expect(try fixture.executor.count(for: request) == 1)
    }

    @Test func countHonoursThePredicateSubentitiesLimitAndOffset() throws {
        var request = FetchRequest(
            entityName: "Product", predicate: try FetchPredicate(format: "price > 1"), resultType: .count)
        #expect(try fixture.executor.execute(request) == .count(4))
        request.fetchLimit = 3
        #expect(try fixture.executor.count(for: request) == 3)
        request.fetchLimit = 0
        request.fetchOffset = 3
        #expect(try fixture.executor.count(for: request) == 1)
        #expect(try fixture.executor.count(for: FetchRequest(entityName: "Category")) == 3)
        #expect(try fixture.executor.count(for: FetchRequest(entityName: "Employee")) == 2)
        let query = try FetchRequest(entityName: "Product", resultType: .count).query(in: fixture.schema)
        #expect(query.sql == #"SELECT COUNT(*) FROM "Product" AS "t0" WHERE 1"#)
    }

    @Test func objectIDsCarryTheStoreAndRoundTripThroughTheirURI() throws {
        let request = FetchRequest(entityName: "Person", resultType: .managedObjectID)
        guard case .objectIDs(let ids) = try fixture.executor.execute(request) else {
            Issue.record("expected object IDs")
            return
        }
        let store = fixture.metadata.storeIdentifier
        #expect(
            ids == [
                ObjectID(entityName: "Person", primaryKey: 1, storeIdentifier: store),
                ObjectID(entityName: "Employee", primaryKey: 2, storeIdentifier: store),
                ObjectID(entityName: "Manager", primaryKey: 3, storeIdentifier: store),
            ])
        #expect(ids[2].uriRepresentation.absoluteString == "x-ferry://\(store)/Manager/p3")
        #expect(ids[2].description == "<x-ferry://\(store)/Manager/p3>")
        for id in ids {
            #expect(ObjectID(uriRepresentation: id.uriRepresentation) == id)
        }
        let managedObjects = FetchRequest(entityName: "Person", resultType: .managedObject)
        #expect(try fixture.executor.execute(managedObjects) == .objectIDs(ids), "objects come back as IDs for now")
    }

    @Test func malformedObjectIDURIsDoNotParse() throws {
        for text in [
            "x-coredata://S/Product/p1", "x-ferry://S/Product/12", "x-ferry://S/Product/p", "x-ferry://S/Product",
            "x-ferry://S/Product/p1/more", "x-ferry://S/Product/p-1", "x-ferry://S/Product/p+1",
            "x-ferry://S/Product/p0",
            "x-ferry:///Product/t5E2C", "x-ferry://S//p1", "x-ferry://S/Product/p99999999999999999999",
        ] {
            #expect(ObjectID(uriString: text) == nil, "\(text)")
        }
        #expect(
            ObjectID(uriString: "x-ferry://S/Product/p12")
                == ObjectID(entityName: "Product", primaryKey: 12, storeIdentifier: "S"))
        let odd = ObjectID(entityName: "Odd Name/é", primaryKey: 4, storeIdentifier: "a b")
        #expect(odd.uriString == "x-ferry://a%20b/Odd%20Name%2F%C3%A9/p4")
        #expect(ObjectID(uriRepresentation: odd.uriRepresentation) == odd)
    }

    @Test func valuesAreBoundAndNeverWrittenIntoTheSQL() throws {
        var request = FetchRequest(
            entityName: "Product", predicate: try FetchPredicate(format: "name == %@", "x'; DROP TABLE Product; --"),
            sortDescriptors: [FetchSortDescriptor(key: "category.name", ascending: false)],
            resultType: .managedObjectID)
        request.fetchLimit = 5
        request.fetchOffset = 2
        let query = try request.query(in: fixture.schema)
        #expect(
            query.sql
                == #"SELECT "t0"."_pk", "t0"."_ent" FROM "Product" AS "t0" "#
                + #"LEFT JOIN "Category" AS "k1" ON "k1"."_pk" = "t0"."category" WHERE "t0"."name" = ? "#
                + #"ORDER BY "k1"."name" DESC, "t0"."_pk" LIMIT ? OFFSET ?"#)
        #expect(query.bindings == [.text("x'; DROP TABLE Product; --"), .integer(5), .integer(2)])
        #expect(try fixture.keys(request) == [])
        #expect(try fixture.executor.count(for: FetchRequest(entityName: "Product")) == 6)
    }

    @Test func unknownSortKeyPathsAreErrorsNamingTheEntityAndKeyPath() throws {
        let request = FetchRequest(entityName: "Product", sortDescriptors: [FetchSortDescriptor(key: "colour")])
        #expect {
            try fixture.keys(request)
        } throws: { error in
            let error = error as? FetchRequestError
            return error?.code == .unknownKeyPath && error?.keyPath == "colour" && error?.entityName == "Product"
                && error?.description == "unknown sort key path 'colour' of Product: Product has no attribute or "
                    + "relationship 'colour'"
        }
        let nested = FetchRequest(entityName: "Product", sortDescriptors: [FetchSortDescriptor(key: "category.title")])
        #expect {
            try fixture.executor.count(for: nested)
        } throws: { error in
            (error as? FetchRequestError)?.description
                == "unknown sort key path 'category.title' of Product: Category has no attribute or "
                + "relationship 'title'"
        }
    }

    @Test func toManyTransientAndRelationshipEndingKeyPathsCannotSort() throws {
        let cases: [(String, String, FetchRequestError.Code)] = [
            ("Category", "products.name", .toManyKeyPath), ("Product", "scratch", .invalidRequest),
            ("Product", "category", .invalidRequest), ("Product", "name.first", .unknownKeyPath),
            ("Product", "", .unknownKeyPath),
        ]
        for (entity, key, code) in cases {
            let request = FetchRequest(entityName: entity, sortDescriptors: [FetchSortDescriptor(key: key)])
            #expect {
                try fixture.keys(request)
            } throws: { error in
                let error = error as? FetchRequestError
                return error?.code == code && error?.description.contains("'\(key)' of \(entity)") == true
            }
        }
    }

    @Test func anUnknownEntityOrANegativeLimitIsAnError() throws {
        #expect {
            try fixture.keys(FetchRequest(entityName: "Nope"))
        } throws: { error in
            (error as? FetchRequestError)?.code == .unknownEntity
        }
        var request = FetchRequest(entityName: "Product")
        request.fetchLimit = -1
        #expect {
            try fixture.keys(request)
        } throws: { error in
            (error as? FetchRequestError)?.code == .invalidRequest
        }
    }
}
