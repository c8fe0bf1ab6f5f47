import Foundation
import Testing

@testable import FerryStore

/// `validate()` on models built in Swift: the same checks as a model file, without file or line.
struct ModelFileSwiftValidationTests {
    @Test func aValidModelReturnsItsWarnings() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Product",
                attributes: [AttributeDescription(name: "sku", type: .string, isOptional: false)],
                relationships: [RelationshipDescription(name: "maker", destinationEntity: "Maker")],
                uniquenessConstraints: [["sku"]]),
            EntityDescription(name: "Maker"),
            EntityDescription(name: "Shape", isAbstract: true),
        ])
        let warnings = try model.validate()
        #expect(warnings.map(\.code) == [.abstractWithoutSubentities, .missingInverse])
        #expect(
            warnings.map(\.description) == [
                "entity Shape: abstract, but no entity inherits from it, so none of its objects can exist",
                "entity Product, relationship maker: no inverse; Ferry cannot keep the other side up to date, and "
                    + "deleting an object may leave references to it",
            ])
        #expect(warnings.last?.entity == "Product")
        #expect(warnings.last?.property == "maker")
        #expect(warnings.last?.file == nil)
    }

    @Test func everyProblemOfASwiftModelIsGatheredWithoutALine() throws {
        let model = ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Product",
                    attributes: [
                        AttributeDescription(name: "sku", type: .string, defaultValue: .integer(12)),
                        AttributeDescription(name: "price", type: .decimal, minValue: 5, maxValue: 1),
                        AttributeDescription(name: "sku", type: .string),
                        AttributeDescription(name: "settings", type: .transformable(transformer: "")),
                        AttributeDescription(name: "flag", type: .boolean, defaultValue: .string("yes")),
                    ],
                    relationships: [
                        RelationshipDescription(name: "maker", destinationEntity: "Maker", minCount: -1)
                    ],
                    uniquenessConstraints: [["maker"]]),
                EntityDescription(name: "Product"),
            ],
            fetchRequestTemplates: ["all": FetchRequestTemplate(entity: "Produkt", predicate: "TRUEPREDICATE")])
        let error = #expect(throws: ModelError.self) { try model.validate() }
        #expect(error?.code == .multipleErrors)
        #expect(error?.detailedErrors.allSatisfy { $0.file == nil && $0.line == nil } == true)
        #expect(
            error?.detailedErrors.map(\.description) == [
                "entity Product: entity Product is declared twice",
                "entity Product, attribute sku: attribute 'sku' is declared twice",
                "entity Product, attribute sku: the default is an integer, but the type is string",
                "entity Product, attribute price: min 5 is greater than max 1",
                "entity Product, attribute settings: type transformable needs a transformer name",
                "entity Product, attribute flag: the default is a string, but the type is boolean",
                "entity Product, relationship maker: minCount must be 0 or more; found -1",
                "entity Product, relationship maker: unknown destination entity 'Maker'; expected one of Product",
                "entity Product: uniqueness constraint [maker] names relationship 'maker'; constraints may name "
                    + "attributes only",
                "fetch request template all: unknown entity 'Produkt'; did you mean 'Product'?",
            ])
    }

    @Test func aSingleProblemIsThrownWithItsOwnCode() {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Order",
                attributes: [AttributeDescription(name: "code", type: .string, regularExpression: "(unclosed")])
        ])
        let error = #expect(throws: ModelError.self) { try model.validate() }
        #expect(error?.code == .invalidRegularExpression)
        #expect(error?.element == .attribute(entity: "Order", name: "code"))
        #expect(error?.description == "entity Order, attribute code: regex '(unclosed' does not compile")
    }
}
