import Foundation
import Testing

@testable import FerryStore

/// ObjectValidator's attribute rules (REFERENCE 9.3) and ValidationError's shape (9.4).
struct ValidationTests {
    typealias Fixture = ValidationFixture

    @Test func aValidObjectHasNoErrors() throws {
        #expect(try Fixture.bookErrors().isEmpty)
    }

    @Test func codesHaveCoreDatasNumbers() {
        let codes: [(ValidationError.Code, Int)] = [
            (.managedObjectValidation, 1550), (.multipleErrors, 1560), (.missingMandatoryProperty, 1570),
            (.relationshipLacksMinimumCount, 1580), (.relationshipExceedsMaximumCount, 1590),
            (.relationshipDeniedDelete, 1600), (.numberTooLarge, 1610), (.numberTooSmall, 1620),
            (.dateTooLate, 1630), (.dateTooSoon, 1640), (.stringTooLong, 1660), (.stringTooShort, 1670),
            (.stringPatternMatching, 1680),
        ]
        for (code, number) in codes { #expect(code.rawValue == number) }
        #expect(ValidationError.Code(rawValue: 1570) == .missingMandatoryProperty)
        #expect(ValidationError.Code.stringTooLong.description == "1660 stringTooLong")
        #expect(ValidationError.Code(rawValue: 1551).description == "1551")
    }

    @Test func oneFailingPropertyIsReportedAsThatErrorItself() throws {
        let errors = try Fixture.bookErrors(["title": nil])
        let error = try #require(ValidationError.combined(errors))
        #expect(error.code == .missingMandatoryProperty)
        #expect(error.key == "title")
        #expect(error.entity == "Book")
        #expect(error.objectDescription == "Book/p7")
        #expect(error.detailedErrors.isEmpty)
    }

    @Test func twoFailingPropertiesAreWrappedInOneMultipleErrorsError() throws {
        let errors = try Fixture.bookErrors(["title": nil, "pages": .integer(0)])
        let error = try #require(ValidationError.combined(errors))
        #expect(error.code == .multipleErrors)
        #expect(error.detailedErrors.summary == ["1570 title", "1620 pages"])
        #expect(error.entity == "Book")
        #expect(error.objectDescription == "Book/p7")
        #expect(error.key == nil)
    }

    @Test func combiningFlattensNestedMultipleErrorsAndNothingGivesNil() throws {
        let first = try #require(
            ValidationError.combined(try Fixture.bookErrors(["title": nil, "pages": .integer(0)])))
        let other = ValidationError(
            .numberTooLarge, message: "must be at most 5", entity: "Review", key: "stars", objectDescription: "R/1")
        let error = try #require(ValidationError.combined([first, other]))
        #expect(error.code == .multipleErrors)
        #expect(error.detailedErrors.summary == ["1570 title", "1620 pages", "1610 stars"])
        #expect(error.entity == nil)
        #expect(error.objectDescription == nil)
        #expect(ValidationError.combined([]) == nil)
        #expect(ValidationError.combined([first])?.detailedErrors.count == 2)
    }

    @Test func aNilOrAbsentNonOptionalAttributeIsAMissingMandatoryProperty() throws {
        var attributes = Fixture.validAttributes
        attributes.removeValue(forKey: "title")
        let errors = try Fixture.validator().validateForInsertOrUpdate(
            entity: "Book", attributes: attributes, relationshipCounts: Fixture.validCounts,
            objectDescription: "Book/p7")
        #expect(errors.summary == ["1570 title"])
        #expect(try Fixture.bookErrors(["title": nil]).summary == ["1570 title"])
    }

    @Test func anEmptyStringIsNotNil() throws {
        #expect(try Fixture.bookErrors(["title": .string("")]).isEmpty)
    }

    @Test func nilSkipsRangeLengthAndPatternChecks() throws {
        let optionals = ["isbn", "slug", "pages", "rating", "price", "published", "cover", "scratch"]
        let errors = try Fixture.bookErrors(Dictionary(uniqueKeysWithValues: optionals.map { ($0, nil) }))
        #expect(errors.isEmpty)
    }

    @Test func integersOutsideTheirBoundsAreTooSmallOrTooLarge() throws {
        #expect(try Fixture.bookErrors(["pages": .integer(0)]).summary == ["1620 pages"])
        #expect(try Fixture.bookErrors(["pages": .integer(1001)]).summary == ["1610 pages"])
        #expect(try Fixture.bookErrors(["pages": .integer(1)]).isEmpty)
        #expect(try Fixture.bookErrors(["pages": .integer(1000)]).isEmpty)
    }

    @Test func anIntegerItsTypeCannotHoldIsTooLargeOrTooSmall() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Box", attributes: [AttributeDescription(name: "size", type: .integer16)])
        ])
        let validator = try ObjectValidator(model: model)
        func errors(_ size: Int64) -> [ValidationError] {
            validator.validateForInsertOrUpdate(
                entity: "Box", attributes: ["size": .integer(size)], relationshipCounts: [:], objectDescription: "B")
        }
        #expect(errors(32_768).summary == ["1610 size"])
        #expect(errors(-32_769).summary == ["1620 size"])
        #expect(errors(32_767).isEmpty)
        #expect(errors(-32_768).isEmpty)
    }

    @Test func aDecimalMustFitItsDeclaredPrecisionAndScaleWithoutRounding() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "price", type: .decimal, decimalPrecision: 6, decimalScale: 2),
                    AttributeDescription(name: "share", type: .decimal, decimalPrecision: 3, decimalScale: 3),
                    AttributeDescription(name: "count", type: .decimal, decimalPrecision: 2),
                ])
        ])
        let validator = try ObjectValidator(model: model)
        func errors(_ key: String, _ text: String) -> [ValidationError] {
            validator.validateForInsertOrUpdate(
                entity: "Item", attributes: [key: Fixture.decimal(text)], relationshipCounts: [:],
                objectDescription: "I")
        }
        for fits in ["9999.99", "-9999.99", "12.5", "12.50", "12.500", "-0.010", "0", "-0.01", "0.00", "1e3", "100e-2"] {
            #expect(errors("price", fits).isEmpty, "\(fits)")
        }
        #expect(errors("price", "10000").summary == ["1610 price"])
        #expect(errors("price", "-10000").summary == ["1620 price"])
        #expect(errors("price", "1e4").summary == ["1610 price"])
        #expect(errors("price", "0.001").summary == ["1550 price"])
        #expect(errors("price", "12.345").summary == ["1550 price"])
        #expect(
            errors("price", "10000").first?.message
                == "must have at most 4 digits before the point (precision 6, scale 2)")
        #expect(
            errors("price", "0.125").first?.message
                == "must have at most 2 digits after the point (precision 6, scale 2); it is not rounded")
        #expect(errors("share", "0.999").isEmpty)
        #expect(errors("share", "1").first?.message == "must have no digits before the point (precision 3, scale 3)")
        #expect(errors("count", "99").isEmpty)
        #expect(
            errors("count", "100").first?.message
                == "must have at most 2 digits before the point (precision 2, scale 0)")
        #expect(
            errors("count", "1.5").first?.message == "must be a whole number (precision 2, scale 0); it is not rounded")
    }

    @Test func doublesOutsideTheirBoundsAreTooSmallOrTooLarge() throws {
        #expect(try Fixture.bookErrors(["rating": .double(-0.01)]).summary == ["1620 rating"])
        #expect(try Fixture.bookErrors(["rating": .double(5.01)]).summary == ["1610 rating"])
        #expect(try Fixture.bookErrors(["rating": .double(0)]).isEmpty)
        #expect(try Fixture.bookErrors(["rating": .double(5)]).isEmpty)
    }

    @Test func decimalBoundsAreComparedExactly() throws {
        // The bound 0.1 is the Double 0.1000000000000000055…; the decimal 0.1 must not count as below it.
        #expect(try Fixture.bookErrors(["price": Fixture.decimal("0.1")]).isEmpty)
        #expect(try Fixture.bookErrors(["price": Fixture.decimal("99.99")]).isEmpty)
        let justBelow = Fixture.decimal("0.09999999999999999999999")
        #expect(try Fixture.bookErrors(["price": justBelow]).summary == ["1620 price"])
        let justAbove = Fixture.decimal("99.99000000000000000001")
        #expect(try Fixture.bookErrors(["price": justAbove]).summary == ["1610 price"])
    }

    @Test func datesOutsideTheirBoundsAreTooSoonOrTooLate() throws {
        let late = Fixture.latestPublication
        #expect(
            try Fixture.bookErrors(["published": .date(Date(timeIntervalSince1970: -1))]).summary == ["1640 published"])
        #expect(
            try Fixture.bookErrors(["published": .date(Date(timeIntervalSince1970: late + 1))]).summary
                == ["1630 published"])
        #expect(try Fixture.bookErrors(["published": .date(Date(timeIntervalSince1970: late))]).isEmpty)
    }

    @Test func stringLengthCountsUTF16CodeUnitsSoAnEmojiCountsTwo() throws {
        // "abc😀" is 4 characters but 5 UTF-16 code units, over maxLength 4.
        #expect(try Fixture.bookErrors(["title": .string("abc😀")]).summary == ["1660 title"])
        #expect(try Fixture.bookErrors(["title": .string("ab😀")]).isEmpty)
        // "😀" is 1 character but 2 code units, enough for minLength 2; "é" is 1 of each.
        #expect(try Fixture.bookErrors(["isbn": .string("😀")]).isEmpty)
        #expect(try Fixture.bookErrors(["isbn": .string("é")]).summary == ["1670 isbn"])
    }

    @Test func aRegularExpressionMustMatchTheWholeString() throws {
        #expect(try Fixture.bookErrors(["slug": .string("dune-messiah")]).isEmpty)
        #expect(try Fixture.bookErrors(["slug": .string("dune!")]).summary == ["1680 slug"])
        #expect(try Fixture.bookErrors(["slug": .string("1dune")]).summary == ["1680 slug"])
        #expect(try Fixture.bookErrors(["slug": .string("dune\n")]).summary == ["1680 slug"])
        #expect(try Fixture.bookErrors(["slug": .string("")]).summary == ["1680 slug"])
    }

    @Test func anAlternationMatchesWholeStringsNotItsFirstBranch() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Code", attributes: [AttributeDescription(name: "tag", type: .string, regularExpression: "a|ab")])
        ])
        let validator = try ObjectValidator(model: model)
        let errors = validator.validateForInsertOrUpdate(
            entity: "Code", attributes: ["tag": .string("ab")], relationshipCounts: [:], objectDescription: "C")
        #expect(errors.isEmpty)
    }

    @Test(arguments: ["[a-z", "a)(b"])
    func aRegularExpressionThatDoesNotCompileFailsWhenTheValidatorIsBuilt(pattern: String) {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Code", attributes: [AttributeDescription(name: "tag", type: .string, regularExpression: pattern)]
            )
        ])
        #expect {
            try ObjectValidator(model: model)
        } throws: { error in
            (error as? ModelError)?.code == .invalidRegularExpression
        }
    }

    @Test func transientAttributesAreValidatedButDerivedOnesAreNot() throws {
        #expect(try Fixture.bookErrors(["scratch": .string("long")]).summary == ["1660 scratch"])
        // chapterCount is non-optional and nil, but the store maintains it.
        #expect(try Fixture.bookErrors(["chapterCount": nil]).isEmpty)
    }

    @Test func aValueOfTheWrongTypeIsAGenericValidationError() throws {
        let errors = try Fixture.bookErrors(["pages": .string("many"), "title": .integer(4)])
        #expect(errors.summary == ["1550 title", "1550 pages"])
        #expect(errors.last?.message == "expected a value of type integer16, found a string")
        #expect(try Fixture.bookErrors(["rating": .decimal(1)]).summary == ["1550 rating"])
    }

    @Test func messagesNeverContainTheValue() throws {
        let secret = "zz-secret"
        let errors = try Fixture.bookErrors([
            "title": .string(secret), "slug": .string("ZZSECRET"), "pages": .integer(12_345),
            "price": Fixture.decimal("123.456789"), "rating": .double(77.125),
            "published": .date(Date(timeIntervalSince1970: 1_234_567_890)), "isbn": .integer(424_242),
        ])
        #expect(
            errors.summary == [
                "1660 title", "1550 isbn", "1680 slug", "1610 pages", "1610 rating",
                "1610 price", "1630 published",
            ])
        let text = try #require(ValidationError.combined(errors)).description
        for value in [secret, "ZZSECRET", "12345", "123.456", "77.125", "2009", "1234567890", "424242"] {
            #expect(!text.contains(value), "the description shows \(value)")
        }
    }

    @Test func aDescriptionNamesTheObjectTheKeyAndTheCode() throws {
        let error = try #require(ValidationError.combined(try Fixture.bookErrors(["pages": .integer(0)])))
        #expect(error.description == "Book Book/p7, pages: must be at least 1 (1620 numberTooSmall)")
        let both = try #require(ValidationError.combined(try Fixture.bookErrors(["pages": .integer(0), "title": nil])))
        #expect(
            both.description == """
                Book Book/p7: 2 validation errors (1560 multipleErrors)
                  Book Book/p7, title: a value is required (not optional) (1570 missingMandatoryProperty)
                  Book Book/p7, pages: must be at least 1 (1620 numberTooSmall)
                """)
    }
}

/// WholeStringRegex, the one whole-string matcher behind model defaults, validation and MATCHES.
struct WholeStringRegexTests {
    @Test func anAlternationMustCoverTheWholeString() throws {
        let regex = try WholeStringRegex("a|ab")
        #expect(regex.matches("ab"))
        #expect(regex.matches("a"))
        #expect(!regex.matches("abc"))
    }

    @Test func anUnbalancedPatternIsRefusedRatherThanReinterpreted() {
        #expect(throws: (any Error).self) { try WholeStringRegex("a)|(b") }
    }

    @Test func caseInsensitivityIsAnOption() throws {
        #expect(try WholeStringRegex("sku-[0-9]+", caseInsensitive: true).matches("SKU-12"))
        #expect(!(try WholeStringRegex("sku-[0-9]+").matches("SKU-12")))
    }
}
