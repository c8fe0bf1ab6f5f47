import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// Problems of form in a model file (unknown keys and types, values of the wrong kind, broken YAML), each
/// reported as the exact line a cron job's log would show.
struct ModelFileErrorTests {
    @Test func everyProblemIsGatheredIntoOneErrorInFileOrder() throws {
        let error = try #require(
            ModelFileFixture.thrown(
                """
                entities:
                  Category: { attributes: { name: string } }
                  Product:
                    attributes:
                      sku: { type: string, optinal: false }
                      price: { type: money }
                      weight: { type: double, min: 10, max: 5 }
                    relationships:
                      category: { to: Catgory, inverse: products }
                """))
        #expect(error.code == .multipleErrors)
        #expect(error.detailedErrors.map(\.code) == [.unknownKey, .unknownType, .invalidRule, .unknownEntity])
        #expect(error.detailedErrors.map(\.line) == [5, 6, 7, 9])
        #expect(error.detailedErrors.map(\.entity) == ["Product", "Product", "Product", "Product"])
        #expect(error.detailedErrors.map(\.property) == ["sku", "price", "weight", "category"])
        #expect(
            error.description == """
                Pipelines/test.model.yml:5: entity Product, attribute sku: unknown key 'optinal'; did you mean \
                'optional'?
                Pipelines/test.model.yml:6: entity Product, attribute price: unknown type 'money'; expected one of \
                integer16, integer32, integer64, double, float, decimal, string, boolean, date, binary, uuid, uri, \
                transformable
                Pipelines/test.model.yml:7: entity Product, attribute weight: min 10 is greater than max 5
                Pipelines/test.model.yml:9: entity Product, relationship category: unknown destination entity \
                'Catgory'; did you mean 'Category'?
                """)
    }

    @Test func aSingleProblemIsThrownAsItself() throws {
        let error = try #require(
            ModelFileFixture.thrown(
                """
                entities:
                  Product: { attributes: { price: { type: decimal, min: abc } } }
                """))
        #expect(error.code == .invalidValue)
        #expect(error.detailedErrors.isEmpty)
        #expect(error.file == "Pipelines/test.model.yml")
        #expect(error.line == 2)
        #expect(error.column == 57)
        #expect(
            error.description
                == "Pipelines/test.model.yml:2: entity Product, attribute price: 'min' must be a number; found 'abc'")
    }

    @Test func unknownKeysAtEveryLevelAreErrorsWithASuggestion() {
        #expect(
            ModelFileFixture.errors(
                """
                entites:
                  Product: {}
                """) == [
                    "Pipelines/test.model.yml:1: unknown key 'entites'; did you mean 'entities'?"
                ])
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product:
                    atributes: { name: string }
                    relationships:
                      category: { to: Product, invers: category, ToMany: false }
                """) == [
                    "Pipelines/test.model.yml:3: entity Product: unknown key 'atributes'; did you mean 'attributes'?",
                    "Pipelines/test.model.yml:5: entity Product, relationship category: unknown key 'invers'; "
                        + "did you mean 'inverse'?",
                    "Pipelines/test.model.yml:5: entity Product, relationship category: unknown key 'ToMany'; "
                        + "did you mean 'toMany'?",
                ])
    }

    @Test func anUnknownKeyWithNothingCloseListsTheKeysExpected() {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product: { attributes: { name: { type: string, colour: red } } }
                """) == [
                    "Pipelines/test.model.yml:2: entity Product, attribute name: unknown key 'colour'; expected one of "
                        + "type, optional, default, transient, indexed, unique, min, max, minLength, maxLength, regex, "
                        + "allowsExternalStorage, derivation, transformer, precision, scale, valueType, "
                        + "renamingIdentifier"
                ])
    }

    @Test func aKeyOfTheOtherKindOfPropertySaysWhereItBelongs() {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product:
                    attributes:
                      tags: { type: string, toMany: true }
                    relationships:
                      self_: { to: Product, derivation: "@count self_", inverse: self_ }
                """) == [
                    "Pipelines/test.model.yml:4: entity Product, attribute tags: 'toMany' applies to relationships, "
                        + "not attributes",
                    "Pipelines/test.model.yml:6: entity Product, relationship self_: 'derivation' applies to "
                        + "attributes, not relationships",
                ])
    }

    @Test func anUnknownTypeSuggestsTheNearestTypeName() {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product:
                    attributes:
                      name: strng
                      title: String
                      count: { type: int }
                """) == [
                    "Pipelines/test.model.yml:4: entity Product, attribute name: unknown type 'strng'; "
                        + "did you mean 'string'?",
                    "Pipelines/test.model.yml:5: entity Product, attribute title: unknown type 'String'; "
                        + "did you mean 'string'?",
                    "Pipelines/test.model.yml:6: entity Product, attribute count: unknown type 'int'; expected one of "
                        + "integer16, integer32, integer64, double, float, decimal, string, boolean, date, binary, "
                        + "uuid, uri, transformable",
                ])
    }

    @Test func transformableNeedsATransformerAndOnlyItTakesOne() {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product:
                    attributes:
                      settings: transformable
                      notes: { type: string, transformer: JSONNotes }
                """) == [
                    "Pipelines/test.model.yml:4: entity Product, attribute settings: type transformable needs "
                        + "'transformer: NAME', the name of a registered transformer",
                    "Pipelines/test.model.yml:5: entity Product, attribute notes: 'transformer' applies to type "
                        + "transformable only, not string",
                ])
    }

    @Test func aMissingTypeOrDestinationIsReportedOnceEvenWhenItsKeyIsMisspelt() {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product:
                    attributes:
                      name:
                      sku: { optional: false }
                      code: { typ: string }
                    relationships:
                      category: { inverse: products }
                      maker: { tp: Product }
                """) == [
                    "Pipelines/test.model.yml:4: entity Product, attribute name: missing type; expected one of "
                        + "integer16, integer32, integer64, double, float, decimal, string, boolean, date, binary, "
                        + "uuid, uri, transformable",
                    "Pipelines/test.model.yml:5: entity Product, attribute sku: missing 'type'; expected one of "
                        + "integer16, integer32, integer64, double, float, decimal, string, boolean, date, binary, "
                        + "uuid, uri, transformable",
                    "Pipelines/test.model.yml:6: entity Product, attribute code: unknown key 'typ'; "
                        + "did you mean 'type'?",
                    "Pipelines/test.model.yml:8: entity Product, relationship category: missing 'to': the destination "
                        + "entity",
                    "Pipelines/test.model.yml:9: entity Product, relationship maker: unknown key 'tp'; "
                        + "did you mean 'to'?",
                ])
    }

    @Test func valuesOfTheWrongKindAreErrors() {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product:
                    attributes:
                      name: { type: string, optional: yes, maxLength: ten }
                      tags: [string]
                    relationships:
                      category: { to: Product, deleteRule: restrict, toMany: 1 }
                    uniquenessConstraints: [sku]
                  Order:
                    attributes: [total]
                """) == [
                    "Pipelines/test.model.yml:4: entity Product, attribute name: 'optional' must be true or false; "
                        + "found 'yes'",
                    "Pipelines/test.model.yml:4: entity Product, attribute name: 'maxLength' must be a whole number; "
                        + "found 'ten'",
                    "Pipelines/test.model.yml:5: entity Product, attribute tags: expected a mapping of settings; "
                        + "found a list",
                    "Pipelines/test.model.yml:7: entity Product, relationship category: unknown delete rule "
                        + "'restrict'; expected one of nullify, cascade, deny, noAction",
                    "Pipelines/test.model.yml:7: entity Product, relationship category: 'toMany' must be true or "
                        + "false; found '1'",
                    "Pipelines/test.model.yml:8: entity Product: each entry of 'uniquenessConstraints' must be a list "
                        + "of attribute names, such as [[a], [b, c]]; found 'sku'",
                    "Pipelines/test.model.yml:10: entity Order: 'attributes' must be a mapping of names to settings; "
                        + "found a list",
                ])
    }

    @Test func aDefaultThatDoesNotSpellAValueOfItsTypeIsAnError() {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Thing:
                    attributes:
                      count: { type: integer32, default: 12.5 }
                      flag: { type: boolean, default: yes }
                      price: { type: decimal, default: 12abc }
                      when: { type: date, default: 05/01/2026 }
                      id: { type: uuid, default: not-a-uuid }
                      site: { type: uri, default: example.com }
                      blob: { type: transformable, transformer: T, default: x }
                      list: { type: string, default: [a, b] }
                """) == [
                    "Pipelines/test.model.yml:4: entity Thing, attribute count: default '12.5' is not a valid "
                        + "integer32; expected a whole number",
                    "Pipelines/test.model.yml:5: entity Thing, attribute flag: default 'yes' is not a valid boolean; "
                        + "expected true or false",
                    "Pipelines/test.model.yml:6: entity Thing, attribute price: default '12abc' is not a valid "
                        + "decimal; expected a decimal number such as 12.50",
                    "Pipelines/test.model.yml:7: entity Thing, attribute when: default '05/01/2026' is not a valid "
                        + "date; expected an ISO-8601 date such as 2026-01-05T09:00:00Z or a number of seconds",
                    "Pipelines/test.model.yml:8: entity Thing, attribute id: default 'not-a-uuid' is not a valid "
                        + "uuid; expected a UUID such as 123E4567-E89B-12D3-A456-426614174000",
                    "Pipelines/test.model.yml:9: entity Thing, attribute site: default 'example.com' is not a valid "
                        + "uri; expected an absolute URI such as https://example.com/",
                    "Pipelines/test.model.yml:10: entity Thing, attribute blob: default 'x' is not a valid "
                        + "transformable; expected base64 text of the value as its transformer encodes it",
                    "Pipelines/test.model.yml:11: entity Thing, attribute list: default must be a single value; "
                        + "found a list",
                ])
    }

    @Test func brokenYAMLIsOneErrorAtItsLine() throws {
        let error = try #require(
            ModelFileFixture.thrown(
                """
                entities:
                  Product:
                    attributes: { name: string
                  Order: {}
                """))
        #expect(error.code == .invalidYAML)
        #expect(error.line == 4)
        #expect(error.description.hasPrefix("Pipelines/test.model.yml:4: not valid YAML: "))
    }

    @Test func aNameWrittenTwiceInOneMappingIsReportedAtItsSecondOccurrence() throws {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product:
                    attributes: { name: string }
                 # orders, indented less than the entities
                  Order: {}

                  Product: {}
                """) == [
                    "Pipelines/test.model.yml:7: 'Product' appears twice in one mapping (first at line 2); each name "
                        + "may appear once"
                ])
        let error = try #require(
            ModelFileFixture.thrown(
                """
                entities:
                  Product: { attributes: { name: string, price: decimal, name: integer32 } }
                """))
        #expect(error.code == .duplicateName)
        #expect(
            error.description
                == "Pipelines/test.model.yml:2: 'name' appears twice in one mapping (first at line 2); each name may "
                + "appear once")
    }

    @Test func anEmptyFileOrOneWithoutEntitiesIsAnError() {
        #expect(
            ModelFileFixture.errors("") == [
                "Pipelines/test.model.yml: the model file is empty; expected 'entities:' with at least one entity"
            ])
        #expect(
            ModelFileFixture.errors(
                """
                # nothing yet
                entities:
                """) == [
                    "Pipelines/test.model.yml:2: the model declares no entities; expected 'entities:' with at least one"
                ])
    }

    @Test func aMissingFileIsFileNotFound() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("absent.model.yml").path
            let error = #expect(throws: ModelError.self) { try ManagedObjectModel.load(from: path) }
            #expect(error?.code == .fileNotFound)
            #expect(error?.description == "\(path): no such model file")
        }
    }

    @Test func aFetchRequestTemplateNeedsAnEntityThatExistsAndAPredicate() {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product: { attributes: { price: decimal } }
                fetchRequestTemplates:
                  cheap: { entity: Prodcut, predicate: "price < 1" }
                  all: { entity: Product }
                  blank: { entity: Product, predicate: " " }
                """) == [
                    "Pipelines/test.model.yml:4: fetch request template cheap: unknown entity 'Prodcut'; "
                        + "did you mean 'Product'?",
                    "Pipelines/test.model.yml:5: fetch request template all: missing 'predicate': a format string "
                        + "such as \"price > $MIN\"",
                    "Pipelines/test.model.yml:6: fetch request template blank: the predicate is empty",
                ])
    }
}
