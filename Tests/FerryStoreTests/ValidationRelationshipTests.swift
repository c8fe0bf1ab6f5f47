import Foundation
import Testing

@testable import FerryStore

/// ObjectValidator's relationship rules (REFERENCE 9.3), the Deny rule at delete (9.2, 10.1), custom validators
/// and the order errors come in.
struct ValidationRelationshipTests {
    typealias Fixture = ValidationFixture

    @Test func aNonOptionalToOneThatIsNilIsAMissingMandatoryProperty() throws {
        #expect(try Fixture.bookErrors(counts: ["author": 0]).summary == ["1570 author"])
        var counts = Fixture.validCounts
        counts.removeValue(forKey: "author")
        let errors = try Fixture.validator().validateForInsertOrUpdate(
            entity: "Book", attributes: Fixture.validAttributes, relationshipCounts: counts,
            objectDescription: "Book/p7")
        #expect(errors.summary == ["1570 author"])
    }

    @Test func anOptionalEmptyToManySkipsItsMinimumCount() throws {
        #expect(try Fixture.bookErrors(counts: ["tags": 0]).isEmpty)
    }

    @Test func anOptionalToManyWithOneMemberLacksItsMinimumCountOfTwo() throws {
        let errors = try Fixture.bookErrors(counts: ["tags": 1])
        #expect(errors.summary == ["1580 tags"])
        #expect(errors.first?.message == "must hold at least 2 objects")
    }

    @Test func aToManyAboveItsMaximumCountExceedsIt() throws {
        #expect(try Fixture.bookErrors(counts: ["tags": 3]).isEmpty)
        #expect(try Fixture.bookErrors(counts: ["tags": 4]).summary == ["1590 tags"])
    }

    @Test func aMaximumCountOfZeroIsUnbounded() throws {
        #expect(try Fixture.bookErrors(counts: ["readers": 10_000]).isEmpty)
    }

    @Test func aNonOptionalEmptyToManyLacksItsMinimumCount() throws {
        // chapters is non-optional with minCount 0: empty fails the count rule (1580), not 1570.
        let errors = try Fixture.bookErrors(counts: ["chapters": 0])
        #expect(errors.summary == ["1580 chapters"])
        #expect(errors.first?.message == "must hold at least 1 object")
    }

    @Test func deletingWithObjectsInADenyRelationshipIsDenied() throws {
        let validator = try Fixture.validator()
        let errors = validator.validateForDelete(
            entity: "Book", relationshipCounts: ["reviews": 2, "publisher": 1, "chapters": 3, "readers": 5],
            objectDescription: "Book/p7")
        #expect(errors.summary == ["1600 reviews", "1600 publisher"])
        #expect(errors.allSatisfy { $0.entity == "Book" && $0.objectDescription == "Book/p7" })
        let error = try #require(ValidationError.combined(Array(errors.prefix(1))))
        #expect(error.code == .relationshipDeniedDelete)
    }

    @Test func deletingWithEmptyDenyRelationshipsIsAllowed() throws {
        let validator = try Fixture.validator()
        let errors = validator.validateForDelete(
            entity: "Book", relationshipCounts: ["reviews": 0, "chapters": 3], objectDescription: "Book/p7")
        #expect(errors.isEmpty)
        #expect(validator.validateForDelete(entity: "Novel", relationshipCounts: [:], objectDescription: "N").isEmpty)
    }

    @Test func aCustomValidatorsErrorIsGatheredAfterTheModelRules() throws {
        var validator = try Fixture.validator()
        validator.addValidator(entity: "Book", key: "title") { value in
            guard case .string(let title)? = value, title.first?.isUppercase != true else { return nil }
            return ValidationError(.managedObjectValidation, message: "a title starts with a capital letter")
        }
        #expect(try Fixture.bookErrors(["title": .string("Dune")], validator: validator).isEmpty)
        let errors = try Fixture.bookErrors(
            ["title": .string("dunes"), "slug": .string("X")], counts: ["tags": 1], validator: validator)
        #expect(errors.summary == ["1660 title", "1550 title", "1680 slug", "1580 tags"])
        let custom = errors[1]
        #expect(custom.entity == "Book")
        #expect(custom.objectDescription == "Book/p7")
        #expect(custom.message == "a title starts with a capital letter")
    }

    @Test func aCustomValidatorSeesNilAndMayUseAnyCode() throws {
        var validator = try Fixture.validator()
        validator.addValidator(entity: "Book", key: "rating") { value in
            value == nil ? ValidationError(.numberTooSmall, message: "rate the book", key: "stars") : nil
        }
        let errors = try Fixture.bookErrors(["rating": nil], validator: validator)
        #expect(errors.summary == ["1620 stars"])
    }

    @Test func aCustomValidatorDoesNotSeeAValueOfTheWrongType() throws {
        var validator = try Fixture.validator()
        validator.addValidator(entity: "Book", key: "pages") { _ in
            ValidationError(.managedObjectValidation, message: "always fails")
        }
        #expect(try Fixture.bookErrors(["pages": .string("x")], validator: validator).summary == ["1550 pages"])
        #expect(try Fixture.bookErrors(validator: validator).summary == ["1550 pages"])
    }

    @Test func aSubentityRunsItsParentsCustomValidatorsFirst() throws {
        var validator = try Fixture.validator()
        validator.addValidator(entity: "Novel", key: "title") { _ in
            ValidationError(.managedObjectValidation, message: "novel rule")
        }
        validator.addValidator(entity: "Book", key: "title") { _ in
            ValidationError(.managedObjectValidation, message: "book rule")
        }
        let novel = try Fixture.bookErrors(
            ["genre": .string("SF")], counts: ["series": 1], validator: validator, entity: "Novel")
        #expect(novel.map(\.message) == ["book rule", "novel rule"])
        #expect(novel.allSatisfy { $0.entity == "Novel" })
        #expect(try Fixture.bookErrors(validator: validator).map(\.message) == ["book rule"])
    }

    @Test func errorsComeAttributesFirstThenRelationshipsInheritedOnesFirst() throws {
        let errors = try Fixture.bookErrors(
            ["genre": nil, "title": nil, "published": .date(Date(timeIntervalSince1970: -5))],
            counts: ["series": 0, "author": 0, "tags": 9], entity: "Novel")
        #expect(
            errors.summary == [
                "1570 title", "1640 published", "1570 genre", "1570 author", "1590 tags", "1570 series",
            ])
    }

    @Test func theValidatorIsAValueTypeSoACopyKeepsItsOwnCustomValidators() throws {
        let plain = try Fixture.validator()
        var custom = plain
        custom.addValidator(entity: "Book", key: "cover") { _ in
            ValidationError(.managedObjectValidation, message: "no covers")
        }
        #expect(try Fixture.bookErrors(validator: plain).isEmpty)
        #expect(try Fixture.bookErrors(validator: custom).summary == ["1550 cover"])
    }

    // Programming errors trap (STYLE habit 8). Each body exits 0 when its setup fails, so it cannot pass by accident.

    @Test func validatingAnUnknownEntityTraps() async {
        await #expect(processExitsWith: .failure) {
            guard let validator = try? ObjectValidator(model: ValidationFixture.model) else { exit(0) }
            _ = validator.validateForDelete(entity: "Magazine", relationshipCounts: [:], objectDescription: "M")
        }
    }

    @Test func aValueForAKeyThatIsNotAnAttributeTraps() async {
        await #expect(processExitsWith: .failure) {
            guard let validator = try? ObjectValidator(model: ValidationFixture.model) else { exit(0) }
            _ = validator.validateForInsertOrUpdate(
                entity: "Author", attributes: ["title": nil], relationshipCounts: [:], objectDescription: "A")
        }
    }

    @Test func aCountForAKeyThatIsNotARelationshipTraps() async {
        await #expect(processExitsWith: .failure) {
            guard let validator = try? ObjectValidator(model: ValidationFixture.model) else { exit(0) }
            _ = validator.validateForInsertOrUpdate(
                entity: "Author", attributes: [:], relationshipCounts: ["author": 1], objectDescription: "A")
        }
    }

    @Test func aToOneHoldingTwoObjectsTraps() async {
        await #expect(processExitsWith: .failure) {
            guard let validator = try? ObjectValidator(model: ValidationFixture.model) else { exit(0) }
            _ = validator.validateForInsertOrUpdate(
                entity: "Book", attributes: ValidationFixture.validAttributes,
                relationshipCounts: ["author": 2, "tags": 2, "chapters": 1], objectDescription: "B")
        }
    }

    @Test func aCustomValidatorForADerivedAttributeTraps() async {
        await #expect(processExitsWith: .failure) {
            guard var validator = try? ObjectValidator(model: ValidationFixture.model) else { exit(0) }
            validator.addValidator(entity: "Book", key: "chapterCount") { _ in nil }
        }
    }

    @Test func theControlCaseOfTheTrapTestsExitsNormally() async {
        await #expect(processExitsWith: .success) {
            guard let validator = try? ObjectValidator(model: ValidationFixture.model) else { exit(1) }
            _ = validator.validateForInsertOrUpdate(
                entity: "Author", attributes: [:], relationshipCounts: ["books": 1], objectDescription: "A")
        }
    }
}
