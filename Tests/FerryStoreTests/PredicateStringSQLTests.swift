import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

// Foundation has a `FetchPredicate` and a `FetchPredicateError` too; in this file the names mean Ferry's.

/// String operators on a real store: BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, the `[c]`, `[d]`, `[cd]` options
/// with non-ASCII text, and values full of wildcard and quote characters that must match literally.
struct PredicateStringSQLTests {
    let fixture: PredicateFixture

    init() throws {
        fixture = try PredicateFixture()
    }

    @Test func beginsWithIsCaseAndDiacriticSensitiveByDefault() throws {
        #expect(try fixture.keys("name BEGINSWITH 'Caf'") == [2, 9])
        #expect(try fixture.keys("name BEGINSWITH 'caf'") == [], "unlike SQLite's LIKE, case matters")
        #expect(try fixture.keys("name BEGINSWITH 'Café'") == [2])
        #expect(try fixture.keys("%K BEGINSWITH %@", "name", "Earl") == [4])
        #expect(try fixture.keys("name BEGINSWITH ''") == [1, 2, 3, 4, 5, 6, 7, 9, 10])
    }

    @Test func optionsFoldCaseAndDiacriticsBeyondASCII() throws {
        #expect(try fixture.keys("name BEGINSWITH[c] 'caf'") == [2, 3, 9])
        #expect(try fixture.keys("name BEGINSWITH[c] 'cafe'") == [3], "[c] keeps the accent of Café")
        #expect(try fixture.keys("name BEGINSWITH[d] 'Cafe'") == [2, 9], "[d] keeps case: CAFE does not match")
        #expect(try fixture.keys("name BEGINSWITH[cd] 'cafe'") == [2, 3, 9])
        #expect(try fixture.keys("name ==[c] 'COFFEE'") == [1])
        #expect(try fixture.keys("name ==[c] 'CAFÉ'") == [2], "É and é fold together; SQLite's NOCASE only folds ASCII")
        #expect(try fixture.keys("name ==[cd] 'cafe'") == [2, 3])
        #expect(try fixture.keys("name ==[d] 'Cafe'") == [2])
        #expect(try fixture.keys("name ==[c] 'STRAẞE'") == [7])
        #expect(try fixture.keys("name !=[c] 'coffee'") == [2, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(
            try fixture.keys("name ==[c] 'café noir'") == [9], "a decomposed é equals a precomposed one once folded")
        #expect(try fixture.keys("ANY tags.label ==[cd] 'eco'") == [7])
        #expect(try fixture.keys("name <[c] 'b'") == [5], "ordering folds too: only '100%…' sorts before 'b'")
    }

    @Test func endsWithAndContains() throws {
        #expect(try fixture.keys("name ENDSWITH 'Grey'") == [4])
        #expect(try fixture.keys("name ENDSWITH 'grey'") == [])
        #expect(try fixture.keys("name ENDSWITH[c] 'GREY'") == [4])
        #expect(try fixture.keys("name CONTAINS 'ff'") == [1])
        #expect(try fixture.keys("name CONTAINS[c] 'ARABICA'") == [5])
        #expect(try fixture.keys("name CONTAINS[cd] 'E N'") == [9])
    }

    @Test(arguments: [
        ("%", [5] as [Int64]), ("_", [5]), ("100%", [5]), ("a_b", [5]), ("'", [6]), ("\"; DROP TABLE", [6]),
        ("*", [10]), ("?", [10]), ("[S", [10]), ("]?", [10]), ("* [", [10]), ("\\", []), ("%_", []),
    ])
    func wildcardAndQuoteCharactersInAValueMatchLiterally(value: String, expected: [Int64]) throws {
        #expect(try fixture.keys("name CONTAINS %@", .string(value)) == expected)
        let compiled = try FetchPredicate(format: "name CONTAINS %@", .string(value)).sql(
            for: "Product", in: fixture.schema)
        #expect(compiled.whereClause == #""t0"."name" GLOB ?"#)
    }

    @Test func wildcardCharactersAreEscapedInTheBoundPattern() throws {
        let compiled = try FetchPredicate(
            format: "name CONTAINS %@ OR name BEGINSWITH %@ OR name ENDSWITH %@", "a*b?[c", "%", "_"
        )
        .sql(for: "Product", in: fixture.schema)
        #expect(compiled.bindings == [.text("*a[*]b[?][[]c*"), .text("%*"), .text("*_")])
    }

    @Test func likeUsesStarAndQuestionMarkWildcards() throws {
        #expect(try fixture.keys("name LIKE 'C*'") == [1, 2, 3, 9])
        #expect(try fixture.keys("name LIKE 'Caf?'") == [2], "? is one character, é included")
        #expect(try fixture.keys("name LIKE[c] 'caf?'") == [2, 3])
        #expect(try fixture.keys("name LIKE[cd] 'cafe*'") == [2, 3, 9])
        #expect(try fixture.keys("name LIKE '*Grey'") == [4])
        #expect(try fixture.keys("name LIKE 'Earl'") == [], "LIKE matches the whole string")
        #expect(try fixture.keys("name LIKE '%'") == [], "% is not a wildcard")
        #expect(try fixture.keys("name LIKE '100?*'") == [5])
        #expect(try fixture.keys("sku LIKE '?-1'") == [1, 3, 5, 7, 9, 10])
        #expect(try fixture.keys(#"name LIKE 'Star\\* [Special]\\?'"#) == [10], "a backslash escapes * and ?")
        #expect(try fixture.keys(#"name LIKE 'Star\\* [Special]'"#) == [])
        #expect(try fixture.keys("name LIKE '*[*'") == [10], "[ is a plain character")
    }

    @Test func matchesIsAWholeStringRegularExpression() throws {
        #expect(try fixture.keys("sku MATCHES '[A-B]-[0-9]'") == [1, 2, 3, 4])
        #expect(try fixture.keys("sku MATCHES 'A'") == [], "MATCHES is anchored at both ends")
        #expect(try fixture.keys(#"sku MATCHES[c] 'a-\\d'"#) == [1, 2])
        #expect(try fixture.keys("name MATCHES 'Cof|Coffee'") == [1], "an alternation may need its longer branch")
        #expect(try fixture.keys("name MATCHES[d] 'Cafe'") == [2])
        #expect(try fixture.keys("name MATCHES[cd] 'cafe.*'") == [2, 3, 9])
        #expect(try fixture.keys(#"name MATCHES '.*\\d.*'"#) == [5])
        #expect(try fixture.keys("NOT name MATCHES 'C.*'") == [4, 5, 6, 7, 8, 10])
    }

    @Test func anInvalidRegularExpressionFailsWhenCompiled() throws {
        let error = try #require(try fixture.compileError("sku MATCHES '('"))
        #expect(error.code == .invalidRegularExpression)
        #expect(error.message == "the MATCHES pattern for 'sku' of Product is not a valid regular expression")
        #expect(try fixture.compileError("sku MATCHES 'a)|(b'")?.code == .invalidRegularExpression)
    }

    @Test func theRegisteredFunctionsWorkInPlainSQL() throws {
        let fold = try fixture.connection.prepare("SELECT ferry_fold('Crème BRÛLÉE', 1, 1), ferry_fold(NULL, 1, 1)")
            .fetchOne()
        #expect(fold?.values == [.text("creme brulee"), .null])
        let regexp = try fixture.connection.prepare(
            "SELECT ferry_regexp('b+', 'bbb', 0), ferry_regexp('b', 'abc', 0), ferry_regexp('B', 'b', 1), "
                + "ferry_regexp('b', NULL, 0)"
        ).fetchOne()
        #expect(regexp?.values == [.integer(1), .integer(0), .integer(1), .null])
        #expect(throws: SQLiteError.self) {
            try fixture.connection.prepare("SELECT ferry_regexp('(', 'x', 0)").fetchOne()
        }
    }
}
