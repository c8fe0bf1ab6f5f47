import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

// Foundation has a `FetchPredicate` and a `FetchPredicateError` too; in this file the names mean Ferry's.

/// Key paths through relationships on a real store: joins for to-one hops, `@count`, ANY/ALL/NONE over a
/// one-to-many and a many-to-many, membership, and sub-entities. Rows are listed on ``PredicateFixture``.
struct PredicateRelationshipSQLTests {
    let fixture: PredicateFixture

    init() throws {
        fixture = try PredicateFixture()
    }

    @Test func aToOneKeyPathJoinsTheDestinationTable() throws {
        #expect(try fixture.keys("category.name == 'Tea'") == [3, 4, 9, 10])
        #expect(try fixture.keys("category.parent.name == 'Coffee'") == [5, 7, 8])
        #expect(try fixture.keys("category.name != 'Tea'") == [1, 2, 5, 6, 7, 8], "no category differs from Tea")
        let compiled = try FetchPredicate(format: "category.parent.name == 'Coffee'").sql(
            for: "Product", in: fixture.schema)
        #expect(
            compiled.fromClause == #""Product" AS "t0" LEFT JOIN "Category" AS "t1" ON "t1"."_pk" = "t0"."category" "#
                + #"LEFT JOIN "Category" AS "t2" ON "t2"."_pk" = "t1"."parent""#)
        #expect(compiled.whereClause == #""t2"."name" = ?"#)
    }

    @Test func aKeyPathPrefixUsedTwiceSharesOneJoin() throws {
        let predicate = try FetchPredicate(format: "category.name == 'Tea' OR category.rank == 3")
        #expect(try fixture.keys(predicate) == [3, 4, 5, 7, 8, 9, 10])
        #expect(try predicate.sql(for: "Product", in: fixture.schema).joins.count == 1)
    }

    @Test func aToOneRelationshipComparesByPrimaryKey() throws {
        #expect(try fixture.keys("category == 1") == [1, 2])
        #expect(try fixture.keys("category IN {1, 3}") == [1, 2, 5, 7, 8])
        #expect(try fixture.keys("parent == nil", of: "Category") == [1, 2, 4])
    }

    @Test func countCountsAOneToManyAndBothSidesOfAManyToMany() throws {
        #expect(try fixture.keys("products.@count > 2", of: "Category") == [2, 3])
        #expect(try fixture.keys("products.@count == 0", of: "Category") == [4])
        #expect(try fixture.keys("children.@count == 1", of: "Category") == [1])
        #expect(try fixture.keys("tags.@count >= 2") == [1, 5])
        #expect(try fixture.keys("tags.@count == 0") == [4, 6, 8, 9, 10])
        #expect(try fixture.keys("products.@count >= 2", of: "Tag") == [1, 2, 3])
        #expect(try fixture.keys("category.products.@count == 2") == [1, 2], "a count after a to-one hop")
        let compiled = try FetchPredicate(format: "tags.@count >= 2").sql(for: "Product", in: fixture.schema)
        #expect(
            compiled.whereClause
                == #"(SELECT COUNT(*) FROM "Product_tags" AS "t1" "#
                + #"JOIN "Tag" AS "t2" ON "t2"."_pk" = "t1"."destination" "#
                + #"WHERE "t1"."source" = "t0"."_pk") >= ?"#)
    }

    @Test func anyAllAndNoneOverAOneToMany() throws {
        #expect(try fixture.keys("ANY products.active == NO", of: "Category") == [1, 3])
        #expect(try fixture.keys("SOME products.name BEGINSWITH[c] 'caf'", of: "Category") == [1, 2])
        #expect(
            try fixture.keys("ALL products.quantity > 1", of: "Category") == [3, 4], "nil fails ALL; no products passes"
        )
        #expect(try fixture.keys("NONE products.active == YES", of: "Category") == [4])
        #expect(try fixture.keys("NONE products.price > 50", of: "Category") == [1, 3, 4])
        #expect(try fixture.keys("NOT ANY products.price > 50", of: "Category") == [1, 3, 4])
        let compiled = try FetchPredicate(format: "ANY products.active == NO").sql(for: "Category", in: fixture.schema)
        #expect(
            compiled.whereClause
                == #"EXISTS (SELECT 1 FROM "Product" AS "t1" WHERE "t1"."category" = "t0"."_pk" AND "t1"."active" = ?)"#
        )
        #expect(compiled.bindings == [.integer(0)])
    }

    @Test func anyAllAndNoneOverAManyToMany() throws {
        #expect(try fixture.keys("ANY tags.label == 'organic'") == [1, 2, 5])
        #expect(try fixture.keys("ALL tags.label IN {'organic', 'fair-trade'}") == [1, 2, 4, 6, 8, 9, 10])
        #expect(try fixture.keys("NONE tags.label == 'organic'") == [3, 4, 6, 7, 8, 9, 10])
        #expect(try fixture.keys("ANY products.sku BEGINSWITH 'C'", of: "Tag") == [1, 2, 3], "from the other side")
        #expect(try fixture.keys("ALL products.active == YES", of: "Tag") == [2, 3, 4])
    }

    @Test func membershipInAToManyKeyPath() throws {
        #expect(try fixture.keys("'decaf' IN tags.label") == [3, 5])
        #expect(try fixture.keys("%@ IN tags", 4) == [7])
        #expect(try fixture.keys("NOT 'organic' IN tags.label") == [3, 4, 6, 7, 8, 9, 10])
    }

    @Test func keyPathsNestInsideSubqueries() throws {
        #expect(try fixture.keys("ANY products.tags.label == 'decaf'", of: "Category") == [2, 3])
        #expect(try fixture.keys("ALL products.tags.label != 'decaf'", of: "Category") == [1, 4])
        #expect(try fixture.keys("ANY products.category.name == 'Coffee'", of: "Tag") == [1, 2])
        #expect(try fixture.keys("ANY products.tags.@count >= 3", of: "Category") == [3])
        #expect(
            try fixture.keys("ANY products.quantity > rank", of: "Category") == [1, 2, 3], "rank is the category's")
    }

    @Test func subEntitiesAreIncludedOrExcludedByEntityNumber() throws {
        let startsWithA = try FetchPredicate(format: "firstName BEGINSWITH 'A'")
        #expect(try fixture.keys(startsWithA, of: "Person") == [1, 3])
        #expect(try fixture.keys(startsWithA, of: "Person", includesSubentities: false) == [1])
        #expect(try fixture.keys(.truePredicate, of: "Employee") == [2, 3, 4])
        #expect(try fixture.keys(.truePredicate, of: "Employee", includesSubentities: false) == [2, 4])
        #expect(try fixture.keys(.truePredicate, of: "Manager") == [3])
        let schema = fixture.schema
        #expect(try startsWithA.sql(for: "Person", in: schema).whereClause == #""t0"."firstName" GLOB ?"#)
        #expect(
            try startsWithA.sql(for: "Person", in: schema, includesSubentities: false).whereClause
                == #""t0"."_ent" = 4 AND "t0"."firstName" GLOB ?"#)
        #expect(
            try FetchPredicate.truePredicate.sql(for: "Employee", in: schema).whereClause == #""t0"."_ent" IN (5, 6)"#)
        #expect(try FetchPredicate.truePredicate.sql(for: "Product", in: schema).whereClause == "1")
    }

    @Test func aToManyIntoASubEntityOnlySeesThatSubEntitysRows() throws {
        // Barbara is a plain Person whose `team` column was set by hand: she is not a member.
        #expect(try fixture.keys("members.@count == 2", of: "Team") == [1])
        #expect(try fixture.keys("members.@count == 0", of: "Team") == [3])
        #expect(try fixture.keys("ANY members.firstName == 'Barbara'", of: "Team") == [])
        #expect(try fixture.keys("ANY members.firstName == 'Alan'", of: "Team") == [1])
        #expect(try fixture.keys("team.name == 'Core'", of: "Employee") == [2, 3])
        let compiled = try FetchPredicate(format: "members.@count == 2").sql(for: "Team", in: fixture.schema)
        #expect(compiled.whereClause.contains(#"AND "t1"."_ent" IN (5, 6))"#))
    }
}
