import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// The model file format: short and long forms, order, typed defaults, constraints and templates.
struct ModelFileFormatTests {
    @Test func theShortFormsGiveAnOptionalAttributeAndAnOptionalToOneNullifyRelationship() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Product:
                    attributes:
                      description: string
                    relationships:
                      category: Category
                  Category:
                """)
        let product = try #require(model.entity(named: "Product"))
        #expect(product.attributes == [AttributeDescription(name: "description", type: .string)])
        #expect(product.relationships == [RelationshipDescription(name: "category", destinationEntity: "Category")])
        #expect(model.entity(named: "Category") == EntityDescription(name: "Category"))
    }

    @Test func theLongFormsSetEverySetting() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Category:
                    attributes:
                      name: { type: string, optional: false, indexed: true, minLength: 1, maxLength: 80,
                              regex: "^[A-Z]" }
                      score: { type: double, min: -1.5, max: 10, transient: true }
                      photo: { type: binary, allowsExternalStorage: true }
                      settings: { type: transformable, transformer: JSONSettings }
                      productCount: { type: integer64, default: 0, derivation: "@count products" }
                    relationships:
                      products: { to: Product, inverse: category, toMany: true, ordered: true, deleteRule: deny,
                                  optional: false, minCount: 1, maxCount: 50 }
                  Product:
                    relationships:
                      category: { to: Category, inverse: products, deleteRule: cascade }
                """)
        let category = try #require(model.entity(named: "Category"))
        #expect(
            category.attributes == [
                AttributeDescription(
                    name: "name", type: .string, isOptional: false, isIndexed: true, minLength: 1, maxLength: 80,
                    regularExpression: "^[A-Z]"),
                AttributeDescription(name: "score", type: .double, isTransient: true, minValue: -1.5, maxValue: 10),
                AttributeDescription(name: "photo", type: .binary, allowsExternalStorage: true),
                AttributeDescription(name: "settings", type: .transformable(transformer: "JSONSettings")),
                AttributeDescription(
                    name: "productCount", type: .integer64, defaultValue: .integer(0), derivation: "@count products"),
            ])
        #expect(
            category.relationships == [
                RelationshipDescription(
                    name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true,
                    isOrdered: true, deleteRule: .deny, isOptional: false, minCount: 1, maxCount: 50)
            ])
        #expect(model.entity(named: "Product")?.relationships.first?.deleteRule == .cascade)
    }

    @Test func entitiesAndPropertiesKeepTheOrderTheyAreWrittenIn() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Zebra:
                    attributes: { zeta: string, alpha: string, mu: string, beta: string }
                    relationships: { zoo: Apple, ant: Mango }
                  Apple: {}
                  Mango:
                """)
        #expect(model.entities.map(\.name) == ["Zebra", "Apple", "Mango"])
        #expect(model.entities[0].attributes.map(\.name) == ["zeta", "alpha", "mu", "beta"])
        #expect(model.entities[0].relationships.map(\.name) == ["zoo", "ant"])
    }

    @Test func inheritanceAndAbstractEntitiesAreRead() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Animal: { abstract: true, attributes: { name: string } }
                  Dog: { parent: Animal, attributes: { breed: string } }
                """)
        #expect(model.entity(named: "Animal")?.isAbstract == true)
        #expect(model.entity(named: "Dog")?.parentEntity == "Animal")
        #expect(model.allAttributes(of: "Dog").map(\.name) == ["name", "breed"])
    }

    @Test func uniqueTrueIsAOneAttributeConstraintListedBeforeTheExplicitOnes() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Customer:
                    uniquenessConstraints: [[firstName, lastName]]
                    attributes:
                      firstName: string
                      lastName: string
                      email: { type: string, unique: true }
                    indexes: [[lastName], [firstName, email]]
                """)
        let customer = try #require(model.entity(named: "Customer"))
        #expect(customer.uniquenessConstraints == [["email"], ["firstName", "lastName"]])
        #expect(customer.indexes == [["lastName"], ["firstName", "email"]])
    }

    @Test func fetchRequestTemplatesAreRead() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Product: { attributes: { price: decimal } }
                fetchRequestTemplates:
                  expensiveProducts: { entity: Product, predicate: "price > $MIN_PRICE" }
                """)
        #expect(
            model.fetchRequestTemplates == [
                "expensiveProducts": FetchRequestTemplate(entity: "Product", predicate: "price > $MIN_PRICE")
            ])
    }

    /// Defaults are read by the attribute's type, not by YAML's own guess at the scalar.
    @Test(arguments: [
        ("integer16", "-12", AttributeValue.integer(-12)),
        ("integer64", "9223372036854775807", .integer(Int64.max)),
        ("double", "2.5", .double(2.5)),
        ("float", "1e3", .double(1000)),
        ("decimal", "12345678901234567.89", .decimal(Decimal(string: "12345678901234567.89") ?? 0)),
        ("decimal", "-0.10", .decimal(Decimal(sign: .minus, exponent: -1, significand: 1))),
        ("string", "01234", .string("01234")),
        ("string", "'true'", .string("true")),
        ("string", "2026-01-05", .string("2026-01-05")),
        ("boolean", "false", .boolean(false)),
        ("boolean", "TRUE", .boolean(true)),
        ("date", "2026-01-05T09:00:00Z", .date(Date(timeIntervalSince1970: 1_767_603_600))),
        ("date", "2026-01-05T10:00:00.250+01:00", .date(Date(timeIntervalSince1970: 1_767_603_600.25))),
        ("date", "2026-01-05", .date(Date(timeIntervalSince1970: 1_767_571_200))),
        (
            "uuid", "123E4567-E89B-12D3-A456-426614174000",
            .uuid(UUID(uuidString: "123e4567-e89b-12d3-a456-426614174000") ?? UUID())
        ),
        (
            "uri", "https://example.com/a?b=1",
            .uri(URL(string: "https://example.com/a?b=1") ?? URL(fileURLWithPath: "/"))
        ),
        ("binary", "aGVsbG8=", .binary(Data("hello".utf8))),
    ])
    func aDefaultIsReadByTheAttributesType(type: String, text: String, expected: AttributeValue) throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Thing:
                    attributes:
                      value: { type: \(type), default: \(text) }
                """)
        #expect(model.entity(named: "Thing")?.attributes.first?.defaultValue == expected)
    }

    @Test func aNullDefaultMeansNoDefault() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Thing: { attributes: { a: { type: integer32, default: null }, b: { type: string, default: ~ } } }
                """)
        #expect(model.entity(named: "Thing")?.attributes.map(\.defaultValue) == [nil, nil])
    }

    @Test func aDecimalDefaultKeepsEveryDigitAsWritten() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Thing: { attributes: { price: { type: decimal, default: 0.30 } } }
                """)
        guard case .decimal(let value)? = model.entity(named: "Thing")?.attributes.first?.defaultValue else {
            Issue.record("no decimal default")
            return
        }
        // 0.1 + 0.2 == 0.3 holds for exact decimals, not for doubles.
        #expect(value == (Decimal(string: "0.1") ?? 0) + (Decimal(string: "0.2") ?? 0))
    }

    /// The example in the format's documentation (on `ManagedObjectModel.load(from:)`) is read from the source, so
    /// the documentation cannot drift from what loads.
    @Test func theExampleInTheFormatDocumentationLoadsWithoutWarnings() throws {
        let source = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent(
                "Sources/FerryStore/Model/ModelFile+ManagedObjectModel.swift"),
            encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(lines.firstIndex(of: "/// ```yaml"))
        let end = try #require(lines[(start + 1)...].firstIndex(of: "/// ```"))
        let yaml = lines[(start + 1)..<end].map { $0.dropFirst(4) }.joined(separator: "\n")
        let file = try ModelFile(yaml: yaml)
        #expect(file.warnings.map(\.description) == [])
        #expect(file.model.entities.map(\.name) == ["Category", "Product", "Animal", "Dog"])
        #expect(file.model.entity(named: "Category")?.uniquenessConstraints == [["name"]])
    }

    @Test func aModelFileIsLoadedFromDisk() throws {
        try TestSupport.withTemporaryFolder { folder in
            let yaml = """
                entities:
                  Tag: { attributes: { label: { type: string, unique: true } } }
                """
            let path = try TestSupport.write(Array(yaml.utf8), to: "tags.model.yml", in: folder)
            let model = try ManagedObjectModel.load(from: path)
            #expect(model.entities.map(\.name) == ["Tag"])
            #expect(model.entity(named: "Tag")?.uniquenessConstraints == [["label"]])
            #expect(try ModelFile(contentsOf: path).path == path)
        }
    }
}
