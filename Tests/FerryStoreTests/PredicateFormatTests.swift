import Foundation
import Testing

@testable import FerryStore

// Foundation has a `FetchPredicate` and a `FetchPredicateError` too; in this file the names mean Ferry's.

/// The description is a format string that parses back to the same predicate; the Swift builder makes the same
/// trees as the parser; substitution fills `$VARIABLE`s.
struct PredicateFormatTests {
    @Test(arguments: [
        "price > 10",
        "name ==[cd] 'Café' AND (price < 2.5 OR NOT active == YES)",
        "a == 1 AND b == 2 AND c == 3",
        "a == 1 AND (b == 2 AND c == 3)",
        "(a == 1 OR b == 2) AND c == 3",
        "a == 1 OR b == 2 AND c == 3",
        "NOT (a == 1 OR b == 2)",
        "NOT NOT a == 1",
        "ANY tags.label BEGINSWITH[c] 'org' OR ALL tags.label != nil OR NONE tags.label LIKE[d] 'x*?'",
        "products.@count > 2 AND category.parent.name ENDSWITH 'ee'",
        "sku IN {'A-1', \"B-2\", nil} AND quantity BETWEEN {-1, 1e-05}",
        "SELF IN {1, 2} AND SELF != 3",
        "name MATCHES '[A-Z]\\\\d+' AND name CONTAINS '\"quoted\" \\'single\\''",
        "price >= $MIN_PRICE AND sku IN $SKUS",
        "TRUEPREDICATE OR FALSEPREDICATE",
        "#in == 1 AND a.#contains == 2 AND #self.x == 3",
        "released > CAST(725760000.5, 'NSDate') AND price == CAST('12.5', 'NSDecimalNumber')",
        "code == CAST('E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'NSUUID') OR photo == CAST('AQI=', 'NSData')",
        "homepage == CAST('https://example.com/a?b=1', 'NSURL')",
        "{} IN {{}} OR 'x' == \"\\n\\t\\r\\0\\u0001\\u007F\"",
    ])
    func theDescriptionParsesBackToAnEqualPredicate(format: String) throws {
        let predicate = try FetchPredicate(format: format)
        let reparsed = try FetchPredicate(format: predicate.description)
        #expect(reparsed == predicate, "\(predicate.description)")
        #expect(reparsed.description == predicate.description)
    }

    @Test func theDescriptionUsesCanonicalSpellings() throws {
        #expect(try FetchPredicate(format: "a = 'x' && b <> 2").description == #"a == "x" AND b != 2"#)
        #expect(try FetchPredicate(format: "some tags.label ==[dc] 'x'").description == #"ANY tags.label ==[cd] "x""#)
        #expect(
            try FetchPredicate(format: "a == 1 or b == 2 and c == 3").description == "a == 1 OR (b == 2 AND c == 3)")
        #expect(try FetchPredicate(format: "a == yes OR b == null").description == "a == TRUE OR b == nil")
        #expect(try FetchPredicate(format: "%K == %@", "in", "it's").description == #"#in == "it's""#)
    }

    @Test func constantsWithoutLiteralsRoundTripThroughCasts() throws {
        let date = Date(timeIntervalSince1970: 1_704_067_200.25)
        let uuid = UUID()
        let url = try #require(URL(string: "https://example.com/x?y=%20z"))
        let values: [AttributeValue] = [
            .date(date), .decimal(Decimal(string: "12345678901234567890.123") ?? 0), .uuid(uuid), .uri(url),
            .binary(Data([0, 1, 254, 255])), .double(0.1), .double(-1e300), .integer(Int64.min),
            .string("\u{1}\u{301}'\"\\"),
            .boolean(false),
        ]
        for value in values {
            let predicate = FetchPredicate.compare(.keyPath("x"), .equalTo, .constant(value))
            #expect(try FetchPredicate(format: predicate.description) == predicate, "\(predicate)")
        }
    }

    @Test func theBuilderMakesTheTreesTheParserMakes() throws {
        let built: FetchPredicate =
            .keyPath("price") > 10
            && .keyPath("name").beginsWith("caf", options: [.caseInsensitive, .diacriticInsensitive])
        #expect(try built == FetchPredicate(format: "price > 10 AND name BEGINSWITH[cd] 'caf'"))

        let either: FetchPredicate = .keyPath("a") == 1 || !(.keyPath("b") != nil) || .keyPath("c") <= 2.5
        #expect(try either == FetchPredicate(format: "a == 1 OR NOT b != nil OR c <= 2.5"))

        let modifiers: FetchPredicate =
            .any(.keyPath("tags.label").in(["tea", "coffee"])) && .all(.keyPath("tags.label") >= "a")
            && .none(.keyPath("tags.label").like("x*"))
        #expect(
            try modifiers
                == FetchPredicate(
                    format:
                        "ANY tags.label IN {'tea', 'coffee'} AND ALL tags.label >= 'a' AND NONE tags.label LIKE 'x*'"))

        let strings: FetchPredicate =
            .keyPath("a").endsWith("z") && .keyPath("a").contains("m", options: .caseInsensitive)
            && .keyPath("a").matches("[a-z]+") && .keyPath("a").equals("Q", options: .diacriticInsensitive)
            && .keyPath("n").between(1, 9) && .evaluatedObject < 100 && .keyPath("products.@count") >= 2
        #expect(
            try strings
                == FetchPredicate(
                    format: "a ENDSWITH 'z' AND a CONTAINS[c] 'm' AND a MATCHES '[a-z]+' AND a ==[d] 'Q' "
                        + "AND n BETWEEN {1, 9} AND SELF < 100 AND products.@count >= 2"))
        #expect(FetchPredicate.conjunction([]) == .truePredicate)
        #expect(FetchPredicate.disjunction([]) == .falsePredicate)
        #expect(
            try FetchPredicate.conjunction([.keyPath("a") == 1, .keyPath("b") == 2, .keyPath("c") == 3])
                == FetchPredicate(format: "a == 1 AND b == 2 AND c == 3"))
        #expect(
            try FetchPredicate.disjunction([.keyPath("a") == 1, .keyPath("b") == 2])
                == FetchPredicate(format: "a == 1 OR b == 2")
        )
    }

    @Test func theDocumentationExamplesMeanWhatTheySay() throws {
        let cheap = try FetchPredicate(format: "price < %@ AND category.name ==[c] %@", 10, "coffee")
        let same: FetchPredicate =
            .keyPath("price") < 10
            && .compare(.keyPath("category.name"), .equalTo, "coffee", options: .caseInsensitive)
        #expect(cheap == same)
        let built: FetchPredicate =
            .keyPath("price") > 10 && .keyPath("category.name").in(["Tea", "Coffee"])
            || .any(.keyPath("tags.label").beginsWith("org", options: [.caseInsensitive]))
            || !(.keyPath("products.@count") == 0)
        let parsed = try FetchPredicate(
            format: "price > 10 AND category.name IN {'Tea', 'Coffee'} OR ANY tags.label BEGINSWITH[c] 'org' "
                + "OR NOT products.@count == 0")
        #expect(built == parsed)
        let arguments = try FetchPredicate(
            format: "%K == %@ AND price < %f AND sku IN %@", "name", "Coffee", 12.5, ["A-1", "A-2"])
        #expect(try arguments == FetchPredicate(format: "name == 'Coffee' AND price < 12.5 AND sku IN {'A-1', 'A-2'}"))
    }

    @Test func expressionEqualityStillAnswersABoolean() {
        let same: Bool = FetchPredicate.Expression.keyPath("a") == .keyPath("a")
        let different: Bool = FetchPredicate.Expression.keyPath("a") == .keyPath("b")
        #expect(same)
        #expect(!different)
    }

    @Test func substitutionReplacesVariablesWithValuesAndArrays() throws {
        let template = try FetchPredicate(
            format: "price >= $MIN_PRICE AND sku IN $SKUS AND note == $NOTE OR x == $LEFT")
        #expect(template.variableNames == ["MIN_PRICE", "SKUS", "NOTE", "LEFT"])
        let filled = template.substituting([
            "MIN_PRICE": .double(10), "SKUS": ["A-1", "A-2"], "NOTE": nil, "UNUSED": 1,
        ])
        #expect(
            try filled
                == FetchPredicate(format: "price >= 10.0 AND sku IN {'A-1', 'A-2'} AND note == nil OR x == $LEFT"))
        #expect(filled.variableNames == ["LEFT"])
        #expect(template.variableNames.count == 4, "substituting returns a new predicate")
        let nested = try FetchPredicate(format: "a IN {$X, 2}").substituting(["X": 1])
        #expect(try nested == FetchPredicate(format: "a IN {1, 2}"))
    }
}
