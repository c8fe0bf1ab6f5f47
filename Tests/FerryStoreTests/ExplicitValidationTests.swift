import Foundation
import Testing

@testable import FerryStore
import FerrySQLite

/// A category that refuses names starting with a digit, on top of the model's rules (which it keeps by calling
/// super first, as Core Data asks of overrides).
final class CheckedCategory: ManagedObject {
    override func validateForInsert() throws {
        var errors: [ValidationError] = []
        do { try super.validateForInsert() } catch let error as ValidationError { errors += error.allErrors }
        if let name: String = self["name"], name.first?.isNumber == true {
            errors.append(ValidationError(.managedObjectValidation, message: "a name starts with a letter"))
        }
        if let error = ValidationError.combined(errors) { throw error }
    }
}

/// `validateForInsert`, `validateForUpdate`, `validateForDelete` and `validateValue(_:forKey:)` called by the app:
/// the model's rules run without a save, custom validators may replace values, errors carry the value and the rule.
struct ExplicitValidationTests {
    @Test func validateForInsertRunsTheModelsRulesWithoutASave() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let category = context.insertObject(entityName: "Category")
            #expect {
                try category.validateForInsert()
            } throws: { error in
                guard let error = error as? ValidationError else { return false }
                return error.code == .missingMandatoryProperty && error.key == "name" && error.rule == "SELF != nil"
                    && error.value == nil && error.entity == "Category"
            }
            category["name"] = "Tea"
            try category.validateForInsert()
            #expect(category.isInserted)
        }
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 0)
    }

    @Test func validateForUpdateReportsTheOffendingValueAndTheRule() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let category = context.insertCategory("Tea")
            try context.save()
            let long = "Tea from a very long way away"
            category["name"] = long
            var caught: ValidationError?
            do { try category.validateForUpdate() } catch let error as ValidationError { caught = error }
            let error = try #require(caught)
            #expect(error.code == .stringTooLong)
            #expect(error.value == .string(long))
            #expect(error.rule == "length <= 20")
            // The value stays out of what is printed: logs travel.
            #expect(!error.description.contains(long))
        }
    }

    @Test func validateValueChecksAValueWithoutSettingIt() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let product = context.insertProduct("P-1", price: 3)
            var price: AttributeValue? = .decimal(-1)
            #expect {
                try product.validateValue(&price, forKey: "price")
            } throws: { error in
                guard let error = error as? ValidationError else { return false }
                return error.code == .numberTooSmall && error.rule == "SELF >= 0" && error.value == .decimal(-1)
            }
            var good: AttributeValue? = .decimal(5)
            try product.validateValue(&good, forKey: "price")
            #expect(product["price"] == Decimal(3))
        }
    }

    @Test func aCoercingValidatorReplacesTheValueExplicitlyAndAtTheSave() async throws {
        let fixture = try await ContextFixture { container in
            container.addCoercingValidator(entity: "Category", key: "name") { value in
                if case .string(let name)? = value { value = .string(name.trimmingCharacters(in: .whitespaces)) }
                return nil
            }
        }
        let context = fixture.context()
        try context.performAndWait {
            let category = context.insertObject(entityName: "Category")
            var name: AttributeValue? = .string("  Tea  ")
            try category.validateValue(&name, forKey: "name")
            #expect(name == .string("Tea"))
            category["name"] = "  Coffee "
            try context.save()
            #expect(category["name"] == "Coffee")
        }
        #expect(try fixture.rows("SELECT name FROM Category") == [[.text("Coffee")]])
    }

    @Test func validateForDeleteRefusesANonEmptyDenyRelationship() async throws {
        let fixture = try await ContextFixture(model: ContextFixture.catalogModel(productsDeleteRule: .deny))
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea")
            let coffee = context.insertCategory("Coffee")
            context.insertProduct("T-1", category: tea)
            try context.save()
            #expect {
                try tea.validateForDelete()
            } throws: { error in
                guard let error = error as? ValidationError else { return false }
                return error.code == .relationshipDeniedDelete && error.key == "products" && error.rule == "@count == 0"
            }
            try coffee.validateForDelete()
        }
    }

    @Test func anOverrideCallingSuperGetsTheModelsErrorsOnceExplicitlyAndAtTheSave() async throws {
        let fixture = try await ContextFixture { $0.register(CheckedCategory.self, forEntity: "Category") }
        let context = fixture.context()
        try context.performAndWait {
            let category = context.insertObject(entityName: "Category")
            category["name"] = "1 very long category name"
            var explicit: ValidationError?
            do { try category.validateForInsert() } catch let error as ValidationError { explicit = error }
            #expect(explicit?.allErrors.map(\.code) == [.stringTooLong, .managedObjectValidation])
            var saving: ValidationError?
            do { try context.save() } catch let error as ValidationError { saving = error }
            #expect(saving?.allErrors.map(\.code) == [.stringTooLong, .managedObjectValidation])
        }
    }
}
