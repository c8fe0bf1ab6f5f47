import Foundation
import Testing

@testable import FerryStore

// Foundation has a `FetchPredicate` and a `FetchPredicateError` too; in this file the names mean Ferry's.

/// Parsing Core Data's format syntax into the predicate tree, with arguments; syntax errors and their columns.
struct PredicateParserTests {
    private typealias Expression = FetchPredicate.Expression

    private func comparison(
        _ lhs: Expression, _ op: FetchPredicate.Operator, _ rhs: Expression, options: FetchPredicate.Options = [],
        modifier: FetchPredicate.Modifier = .direct
    ) -> FetchPredicate {
        .comparison(FetchPredicate.Comparison(lhs, op, rhs, options: options, modifier: modifier))
    }

    private func syntaxError(_ format: String, _ arguments: PredicateArgument...) -> FetchPredicateError? {
        do {
            _ = try FetchPredicate(format: format, arguments: arguments)
            return nil
        } catch {
            return error as? FetchPredicateError
        }
    }

    @Test func aComparisonIsAKeyPathAnOperatorAndAConstant() throws {
        #expect(
            try FetchPredicate(format: "price > 10")
                == comparison(.keyPath("price"), .greaterThan, .constant(.integer(10))))
        #expect(
            try FetchPredicate(format: "category.name == 'Tea'")
                == comparison(.keyPath("category.name"), .equalTo, .constant(.string("Tea"))))
    }

    @Test(arguments: [
        ("a = 1", "a == 1"), ("a <> 1", "a != 1"), ("a =< 1", "a <= 1"), ("a => 1", "a >= 1"),
        ("a == 1 && b == 1 || !c == 1", "a == 1 AND b == 1 OR NOT c == 1"), ("SOME t.x == 1", "ANY t.x == 1"),
        ("a == NULL", "a == nil"), ("a == yes", "a == TRUE"), ("a == no", "a == FALSE"),
    ])
    func everyOperatorSpellingMeansTheSameAsItsCanonicalForm(pair: (String, String)) throws {
        #expect(try FetchPredicate(format: pair.0) == FetchPredicate(format: pair.1))
    }

    @Test func keywordsAreCaseInsensitive() throws {
        let lower = try FetchPredicate(
            format: "any tags.label beginswith[cd] 'x' and not price between {1, 2} or truepredicate")
        let upper = try FetchPredicate(
            format: "ANY tags.label BEGINSWITH[CD] 'x' AND NOT price BETWEEN {1, 2} OR TRUEPREDICATE")
        #expect(lower == upper)
        #expect(
            lower
                == .or(
                    .and(
                        comparison(
                            .keyPath("tags.label"), .beginsWith, .constant(.string("x")),
                            options: [.caseInsensitive, .diacriticInsensitive], modifier: .any),
                        .not(
                            comparison(
                                .keyPath("price"), .between,
                                .aggregate([.constant(.integer(1)), .constant(.integer(2))])))),
                    .truePredicate))
    }

    @Test func andBindsTighterThanOrAndNotTighterThanAnd() throws {
        let a = comparison(.keyPath("a"), .equalTo, .constant(.integer(1)))
        let b = comparison(.keyPath("b"), .equalTo, .constant(.integer(2)))
        let c = comparison(.keyPath("c"), .equalTo, .constant(.integer(3)))
        #expect(try FetchPredicate(format: "a == 1 OR b == 2 AND c == 3") == .or(a, .and(b, c)))
        #expect(try FetchPredicate(format: "(a == 1 OR b == 2) AND c == 3") == .and(.or(a, b), c))
        #expect(try FetchPredicate(format: "NOT a == 1 AND b == 2") == .and(.not(a), b))
        #expect(try FetchPredicate(format: "a == 1 AND b == 2 AND c == 3") == .and(.and(a, b), c))
        #expect(try FetchPredicate(format: "!(a == 1 || b == 2)") == .not(.or(a, b)))
    }

    @Test func everyOperatorAndModifierParses() throws {
        let operators: [(String, FetchPredicate.Operator)] = [
            ("==", .equalTo), ("!=", .notEqualTo), ("<", .lessThan), ("<=", .lessThanOrEqualTo), (">", .greaterThan),
            (">=", .greaterThanOrEqualTo), ("IN", .in), ("BEGINSWITH", .beginsWith), ("ENDSWITH", .endsWith),
            ("CONTAINS", .contains), ("LIKE", .like), ("MATCHES", .matches), ("BETWEEN", .between),
        ]
        for (spelling, op) in operators {
            #expect(try FetchPredicate(format: "x \(spelling) y") == comparison(.keyPath("x"), op, .keyPath("y")))
        }
        let modifiers: [(String, FetchPredicate.Modifier)] = [
            ("ANY", .any), ("SOME", .any), ("ALL", .all), ("NONE", .none),
        ]
        for (spelling, modifier) in modifiers {
            #expect(
                try FetchPredicate(format: "\(spelling) tags.label == 'x'")
                    == comparison(.keyPath("tags.label"), .equalTo, .constant(.string("x")), modifier: modifier))
        }
        #expect(
            try FetchPredicate(format: "a ==[c] 'x'")
                == comparison(.keyPath("a"), .equalTo, "x", options: .caseInsensitive))
        #expect(
            try FetchPredicate(format: "a ==[d] 'x'")
                == comparison(.keyPath("a"), .equalTo, "x", options: .diacriticInsensitive))
    }

    @Test func constantsParseToTheirValues() throws {
        func rhs(_ format: String) throws -> Expression? {
            guard case .comparison(let comparison) = try FetchPredicate(format: "x == " + format) else { return nil }
            return comparison.rhs
        }
        #expect(try rhs("'single \\'quoted\\''") == .constant(.string("single 'quoted'")))
        #expect(
            try rhs(#""double \"quoted\" \\ \n\t\u00e9""#) == .constant(.string("double \"quoted\" \\ \n\té")))
        #expect(try rhs("-42") == .constant(.integer(-42)))
        #expect(try rhs("9223372036854775807") == .constant(.integer(Int64.max)))
        #expect(try rhs("2.5") == .constant(.double(2.5)))
        #expect(try rhs("-1e-3") == .constant(.double(-0.001)))
        #expect(try rhs("TRUE") == .constant(.boolean(true)))
        #expect(try rhs("yes") == .constant(.boolean(true)))
        #expect(try rhs("false") == .constant(.boolean(false)))
        #expect(try rhs("NO") == .constant(.boolean(false)))
        #expect(try rhs("nil") == .constant(nil))
        #expect(try rhs("NULL") == .constant(nil))
        #expect(try rhs("SELF") == .evaluatedObject)
        #expect(try rhs("SELF.name") == .keyPath("name"))
        #expect(try rhs("#in.#size") == .keyPath("in.size"))
        #expect(try rhs("products.@count") == .keyPath("products.@count"))
        #expect(try rhs("$MIN_PRICE") == .variable("MIN_PRICE"))
        #expect(try rhs("{}") == .aggregate([]))
        #expect(try rhs("{1, 'a', {nil}}") == .aggregate([1, "a", .aggregate([nil])]))
        #expect(try rhs("CAST(0, \"NSDate\")") == .constant(.date(Date(timeIntervalSinceReferenceDate: 0))))
        #expect(try rhs("CAST('12.50', 'NSDecimalNumber')") == .constant(.decimal(Decimal(string: "12.5") ?? 0)))
        let uuid = UUID()
        #expect(try rhs("CAST('\(uuid.uuidString)', 'NSUUID')") == .constant(.uuid(uuid)))
        #expect(try rhs("CAST('AQI=', 'NSData')") == .constant(.binary(Data([1, 2]))))
        let url = try #require(URL(string: "https://example.com/a?b=1"))
        #expect(try rhs("CAST('https://example.com/a?b=1', 'NSURL')") == .constant(.uri(url)))
    }

    @Test func formatArgumentsFillKeyPathsAndValuesInOrder() throws {
        #expect(
            try FetchPredicate(format: "%K == %@", "name", "Coffee")
                == comparison(.keyPath("name"), .equalTo, .constant(.string("Coffee"))))
        #expect(
            try FetchPredicate(format: "%K.name == %@", "category", "name")
                == comparison(.keyPath("category.name"), .equalTo, .constant(.string("name"))),
            "%@ with a string is a value, never a key path")
        #expect(try FetchPredicate(format: "a == %d", 3) == comparison(.keyPath("a"), .equalTo, 3))
        #expect(try FetchPredicate(format: "a == %i", .integer(Int32(-3))) == comparison(.keyPath("a"), .equalTo, -3))
        #expect(try FetchPredicate(format: "a == %ld", 7) == comparison(.keyPath("a"), .equalTo, 7))
        #expect(try FetchPredicate(format: "a == %lld", true) == comparison(.keyPath("a"), .equalTo, 1))
        #expect(try FetchPredicate(format: "a == %f", 2.5) == comparison(.keyPath("a"), .equalTo, 2.5))
        #expect(try FetchPredicate(format: "a == %lf", 2) == comparison(.keyPath("a"), .equalTo, .constant(.double(2))))
        #expect(try FetchPredicate(format: "a IN %@", ["x", 1, nil]) == comparison(.keyPath("a"), .in, ["x", 1, nil]))
        #expect(try FetchPredicate(format: "a == %@", nil) == comparison(.keyPath("a"), .equalTo, nil))
        #expect(
            try FetchPredicate(format: "a == '%@'") == comparison(.keyPath("a"), .equalTo, "%@"), "quoted %@ is text")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(
            try FetchPredicate(format: "a > %@", .date(date))
                == comparison(.keyPath("a"), .greaterThan, .constant(.date(date))))
    }

    @Test func aDoubledOperatorPointsAtTheSecondCharacter() throws {
        // "price >> 3": the first '>' is the operator (column 7), so the expression is missing at column 8.
        let error = try #require(syntaxError("price >> 3"))
        #expect(error.code == .syntax)
        #expect(error.column == 8)
        #expect(error.description == "column 8: unexpected '>'; expected an expression")
        #expect(error.format == "price >> 3")
        #expect(error.annotatedDescription.hasSuffix("    price >> 3\n           ^"))
    }

    @Test(arguments: [
        ("price >", 8, "unexpected end of format; expected an expression"),
        ("(price > 3", 11, "unexpected end of format; expected ')'"),
        ("price > 3 AND", 14, "unexpected end of format; expected an expression"),
        ("price > 3 price", 11, "unexpected 'price'; expected AND, OR or the end of the format"),
        ("price 3", 7, "unexpected '3'; expected a comparison operator"),
        ("price ~ 3", 7, "unexpected '~'"),
        ("name == \"abc", 9, "unterminated string"),
        ("name == 'a\\qb'", 11, "unknown escape '\\q' in a string"),
        ("name ==[x] 'a'", 9, "unknown comparison option 'x'; expected c or d"),
        ("name ==[cx] 'a'", 10, "unknown comparison option 'x'; expected c or d"),
        ("name == 3abc", 10, "unexpected 'a' after the number 3"),
        ("name == 99999999999999999999", 9, "the integer 99999999999999999999 is out of range"),
        ("café == 'x' & 1", 13, "unexpected '&'"),
        ("name == AND", 9, "unexpected 'AND'; expected an expression"),
        ("a.AND == 1", 3, "unexpected 'AND'; expected a key path component"),
        ("a IN {1, 2", 11, "unexpected end of format; expected ',' or '}'"),
        ("a == 'x' 'y'", 10, "unexpected ''y''; expected AND, OR or the end of the format"),
        ("a == %q", 6, "unknown format specifier '%q'"),
        (
            "a == CAST(1, 'NSThing')", 14,
            "unknown CAST type 'NSThing'; expected NSDate, NSDecimalNumber, NSUUID, NSURL or NSData"
        ),
        ("a == CAST('x', 'NSUUID')", 11, "cannot CAST 'x' to NSUUID"),
        ("a == $", 6, "expected a name after '$'"),
    ])
    func aSyntaxErrorNamesItsColumn(example: (String, Int, String)) throws {
        let (format, column, message) = example
        let error = try #require(syntaxError(format))
        #expect(error.code == .syntax)
        #expect(error.column == column)
        #expect(error.message == message)
        #expect(error.format == format)
    }

    @Test func argumentsMustMatchTheirSpecifiers() throws {
        let missing = try #require(syntaxError("%K == %@", "name"))
        #expect(missing.code == .argument)
        #expect(missing.column == 7)
        #expect(missing.description == "column 7: no argument for %@: the format uses more than the 1 given")
        let extra = try #require(syntaxError("name == %@", "a", "b"))
        #expect(extra.code == .argument)
        #expect(extra.column == nil)
        #expect(extra.message == "2 arguments given but the format uses 1")
        #expect(syntaxError("%K == 1", 3)?.code == .argument)
        #expect(syntaxError("a == %d", "3")?.code == .argument)
        #expect(syntaxError("a == %f", "3")?.code == .argument)
        #expect(syntaxError("a == %d", 2.5)?.message == "%d needs an integer")
    }

    @Test func columnsCountCharactersNotBytesOrScalars() throws {
        // "e\u{301}" is one character of two scalars; the error is still at the 12th character.
        let error = try #require(syntaxError("cafe\u{301} == 'é' ~"))
        #expect(error.column == 13)
        #expect(
            try FetchPredicate(format: "name == 'Cafe\u{301}'") == comparison(.keyPath("name"), .equalTo, "Cafe\u{301}")
        )
        #expect(
            try FetchPredicate(format: "name == \"\u{301}x\"") == comparison(.keyPath("name"), .equalTo, "\u{301}x"),
            "a quote followed by a combining mark still opens the string")
    }
}
