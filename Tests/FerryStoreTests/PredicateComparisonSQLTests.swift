import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

// Foundation has a `FetchPredicate` and a `FetchPredicateError` too; in this file the names mean Ferry's.

/// Comparisons compiled to SQL and run on a real store: operators, storage encodings, nil, IN, BETWEEN, NOT and
/// substitution. Rows are listed on ``PredicateFixture``.
struct PredicateComparisonSQLTests {
    let fixture: PredicateFixture

    init() throws {
        fixture = try PredicateFixture()
    }

    @Test func equalityAndInequalityOnStrings() throws {
        #expect(try fixture.keys("sku == 'A-1'") == [1])
        #expect(try fixture.keys("name = \"Coffee\"") == [1])
        #expect(try fixture.keys("name == 'coffee'") == [], "equality is case-sensitive without [c]")
        #expect(
            try fixture.keys("name != 'Coffee'") == [2, 3, 4, 5, 6, 7, 8, 9, 10], "objects without a name differ too")
        #expect(try fixture.keys("'Coffee' == name") == [1], "a constant may come first")
    }

    @Test func orderingOnIntegers() throws {
        #expect(try fixture.keys("quantity > 3") == [1, 5, 7])
        #expect(try fixture.keys("quantity >= 3") == [1, 3, 5, 7])
        #expect(try fixture.keys("quantity < 3") == [2, 6, 8])
        #expect(try fixture.keys("quantity <= 3") == [2, 3, 6, 8])
        #expect(try fixture.keys("3 < quantity") == [1, 5, 7])
        #expect(try fixture.keys("quantity > 2.5") == [1, 3, 5, 7], "an integer column compares with a double")
    }

    @Test func decimalsCompareAsNumbersNotAsText() throws {
        // As text, "100" < "20" < "9.9"; as numbers 100 is the largest.
        #expect(try fixture.keys("price > 20") == [3])
        #expect(try fixture.keys("price >= 20") == [3, 5])
        #expect(try fixture.keys("price == 12.5") == [1])
        #expect(try fixture.keys("price == %@", .decimal(Decimal(string: "12.500") ?? 0)) == [1], "12.500 is 12.5")
        #expect(try fixture.keys("price == CAST('12.50', 'NSDecimalNumber')") == [1])
        #expect(try fixture.keys("price != 12.5") == [2, 3, 4, 5, 6, 7, 8, 9, 10], "objects without a price differ")
        #expect(try fixture.keys("price < 1") == [8])
        #expect(try fixture.keys("price BETWEEN {9.5, 12.5}") == [1, 2, 7])
        #expect(try fixture.keys("price IN {100, 9.9}") == [2, 3])
    }

    @Test func doublesBooleansDatesUUIDsAndURIsUseTheirStorageEncodings() throws {
        #expect(try fixture.keys("weight >= 1") == [3, 5])
        #expect(try fixture.keys("weight == %f", 0.25) == [1])
        #expect(try fixture.keys("active == YES") == [1, 3, 5, 7])
        #expect(try fixture.keys("active == false") == [2, 6, 8])
        #expect(try fixture.keys("active == 1") == [1, 3, 5, 7])
        #expect(try fixture.keys("active != TRUE") == [2, 4, 6, 8, 9, 10])
        let march2024 = Date(timeIntervalSince1970: 1_709_251_200)
        #expect(try fixture.keys("released > %@", .date(march2024)) == [2, 5])
        #expect(
            try fixture.keys(
                "released BETWEEN %@", [.date(march2024), .date(Date(timeIntervalSince1970: 1_735_689_600))]) == [2, 5])
        // 2024-01-01 is 725760000 seconds after 2001-01-01, Core Data's reference date for CAST.
        #expect(try fixture.keys("released == CAST(725760000, 'NSDate')") == [1])
        let code = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try fixture.keys("code == %@", .uuid(code)) == [1], "UUIDs are stored lower-case")
        #expect(try fixture.keys("code == %@", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") == [1])
        let homepage = try #require(URL(string: "https://example.com/coffee"))
        #expect(try fixture.keys("homepage == %@", .uri(homepage)) == [1])
        #expect(try fixture.keys("homepage BEGINSWITH 'https://'") == [1])
        #expect(try fixture.keys("photo == %@", .binary(Data([1, 2]))) == [1])
    }

    @Test func nilComparisonsBecomeIsNull() throws {
        #expect(try fixture.keys("name == nil") == [8])
        #expect(try fixture.keys("name != nil") == [1, 2, 3, 4, 5, 6, 7, 9, 10])
        #expect(try fixture.keys("nil == price") == [6])
        #expect(try fixture.keys("category == nil") == [6])
        #expect(try fixture.keys("name == %@", nil) == [8])
        let compiled = try FetchPredicate(format: "name == nil").sql(for: "Product", in: fixture.schema)
        #expect(compiled.whereClause == #""t0"."name" IS NULL"#)
        #expect(compiled.bindings.isEmpty)
    }

    @Test func inTakesArrayLiteralsAndArrayArguments() throws {
        #expect(try fixture.keys("sku IN {'A-1', 'B-2', 'Z-9'}") == [1, 4])
        #expect(try fixture.keys("sku IN %@", ["A-1", "B-2"]) == [1, 4])
        #expect(try fixture.keys("quantity IN {0, 10}") == [1, 2])
        #expect(try fixture.keys("name IN {nil, 'CAFE'}") == [3, 8])
        #expect(try fixture.keys("sku IN {}") == [])
        #expect(try fixture.keys("name IN[c] {'coffee', 'cafe'}") == [1, 3])
        #expect(try fixture.keys("name IN[cd] {'coffee', 'cafe'}") == [1, 2, 3])
        #expect(try fixture.keys("SELF IN {1, 3}") == [1, 3])
        #expect(try fixture.keys("SELF == 2") == [2])
        let compiled = try FetchPredicate(format: "sku IN %@", ["A-1", "B-2", "C-1"]).sql(
            for: "Product", in: fixture.schema)
        #expect(compiled.whereClause == #""t0"."sku" IN (?, ?, ?)"#)
        #expect(compiled.bindings == [.text("A-1"), .text("B-2"), .text("C-1")])
    }

    @Test func betweenIsInclusive() throws {
        #expect(try fixture.keys("quantity BETWEEN {2, 5}") == [3, 7, 8])
        #expect(try fixture.keys("quantity BETWEEN %@", [2, 5]) == [3, 7, 8])
        #expect(try fixture.keys("NOT quantity BETWEEN {2, 5}") == [1, 2, 4, 5, 6, 9, 10])
    }

    @Test func notIncludesObjectsWhoseComparisonHadNoValue() throws {
        #expect(try fixture.keys("NOT quantity > 3") == [2, 3, 4, 6, 8, 9, 10])
        #expect(try fixture.keys("NOT (name == 'Coffee')") == [2, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(try fixture.keys("NOT NOT quantity > 3") == [1, 5, 7])
        #expect(try fixture.keys("NOT (quantity > 3 OR active == NO)") == [3, 4, 9, 10])
    }

    @Test func andOrAndTheConstantPredicates() throws {
        #expect(try fixture.keys("active == YES AND quantity > 5") == [1, 5])
        #expect(try fixture.keys("sku == 'A-1' OR sku == 'B-2'") == [1, 4])
        #expect(try fixture.keys("sku == 'A-1' OR sku == 'B-2' AND quantity == nil") == [1, 4])
        #expect(try fixture.keys("(sku == 'A-1' OR sku == 'B-2') AND quantity == nil") == [4])
        #expect(try fixture.keys("TRUEPREDICATE") == Array(1...10))
        #expect(try fixture.keys("FALSEPREDICATE OR sku == 'A-2'") == [2])
        #expect(try fixture.keys("1 == 1") == Array(1...10))
        #expect(try fixture.keys("nil == nil AND sku == 'A-1'") == [1])
    }

    @Test func twoKeyPathsCompareWithEachOther() throws {
        #expect(try fixture.keys("quantity > weight") == [1, 3, 5, 7, 8])
        #expect(try fixture.keys("name == sku") == [])
        #expect(try fixture.keys("name != name") == [], "nil is not different from nil")
        #expect(try fixture.keys("name == name") == Array(1...10), "nil equals nil, as in memory")
    }

    @Test func substitutionVariablesFillFetchRequestTemplates() throws {
        let template = try FetchPredicate(format: "quantity >= $MIN AND sku IN $SKUS")
        let filled = template.substituting(["MIN": 3, "SKUS": ["A-1", "B-1", "A-2"]])
        #expect(try fixture.keys(filled) == [1, 3])
        let byDate = try FetchPredicate(format: "released < $BEFORE").substituting([
            "BEFORE": .date(Date(timeIntervalSince1970: 1_704_067_201))
        ])
        #expect(try fixture.keys(byDate) == [1, 3])
    }

    @Test func valuesAreBoundAndNeverPartOfTheSQL() throws {
        let hostile = "x'); DROP TABLE \"Product\"; --"
        let compiled = try FetchPredicate(format: "name == %@ OR sku == %@", .string(hostile), "A-1").sql(
            for: "Product", in: fixture.schema)
        #expect(compiled.whereClause == #"("t0"."name" = ? OR "t0"."sku" = ?)"#)
        #expect(compiled.bindings == [.text(hostile), .text("A-1")])
        #expect(try fixture.keys("name == %@ OR sku == %@", .string(hostile), "A-1") == [1])
        #expect(try fixture.keys("name == %@", "it's \"; DROP TABLE Product; --") == [6])
        #expect(try fixture.keys("TRUEPREDICATE").count == 10, "the table is still there")
    }

    @Test func theSQLTextDependsOnlyOnThePredicatesShape() throws {
        let first = try FetchPredicate(format: "price > %@ AND name BEGINSWITH[c] %@", 1, "a").sql(
            for: "Product", in: fixture.schema)
        let second = try FetchPredicate(format: "price > %@ AND name BEGINSWITH[c] %@", 99, "zz").sql(
            for: "Product", in: fixture.schema)
        #expect(first.whereClause == second.whereClause)
        #expect(first.whereClause == #"(CAST("t0"."price" AS REAL) > ? AND ferry_fold("t0"."name", 1, 0) GLOB ?)"#)
        #expect(first.bindings == [.real(1), .text("a*")])
        #expect(first.fromClause == #""Product" AS "t0""#)
    }
}
