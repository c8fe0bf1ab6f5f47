import FerryTestSupport
import Foundation
import Testing
import Yams

@testable import FerryStore

/// ManagedObjectModel.modelFileYAML: the text reads back (ModelFile) as an equal model with the same version hash,
/// for the catalog file, the Swift-built fixtures, every setting and default type, and awkward names and texts.
struct ModelFileWriterTests {
    /// Writes `model`, reads the text back as a model file, and checks that nothing changed.
    @discardableResult
    static func expectRoundTrip(
        _ model: ManagedObjectModel, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let text = model.modelFileYAML
        let again: ManagedObjectModel
        do {
            again = try ManagedObjectModel(yaml: text, path: "written.model.yml")
        } catch {
            Issue.record("the written text does not load: \(error)\n\(text)", sourceLocation: sourceLocation)
            return text
        }
        #expect(again == model, "\(text)", sourceLocation: sourceLocation)
        #expect(again.versionHash == model.versionHash, sourceLocation: sourceLocation)
        #expect(again.modelFileYAML == text, "writing is deterministic", sourceLocation: sourceLocation)
        return text
    }

    @Test func theCatalogModelFileRoundTrips() throws {
        let path = TestSupport.packageRoot.appendingPathComponent("Pipelines/catalog.model.yml").path
        let model = try ManagedObjectModel.load(from: path)
        let text = try Self.expectRoundTrip(model)
        #expect(text.contains("      name: { type: string, optional: false, minLength: 1, maxLength: 80 }\n"))
        #expect(text.contains("      description: string\n"), "a property with default settings is short")
        #expect(text.contains("      category: { to: Category, inverse: products }\n"))
        #expect(
            text.hasSuffix(
                """
                fetchRequestTemplates:
                  expensiveProducts: { entity: Product, predicate: "price > $MIN_PRICE" }
                  unpaidOrdersSince: { entity: Order, predicate: "paid == NO AND placed_at >= $SINCE" }

                """))
    }

    static let fixtureModels: [(String, ManagedObjectModel)] =
        [
            ("batch", BatchTestFixture.model), ("derived", DerivedAttributeTests.model),
            ("fetch", FetchRequestFixture.model),
        ] + DeleteRule.allCases.map { ("context \($0)", ContextFixture.catalogModel(productsDeleteRule: $0)) }

    @Test(arguments: fixtureModels.map(\.0))
    func theSwiftBuiltFixtureModelsRoundTrip(name: String) throws {
        let model = try #require(Self.fixtureModels.first { $0.0 == name }?.1)
        try model.validate()
        try Self.expectRoundTrip(model)
    }

    @Test func everySettingOfEntitiesPropertiesConstraintsAndTemplatesRoundTrips() throws {
        let text = try Self.expectRoundTrip(WriterFixture.everySetting)
        #expect(
            text.contains(
                "      placed: { type: date, optional: false, indexed: true, min: \"2000-01-01T00:00:00Z\", "
                    + "max: 4102444800.5 }\n"))
        #expect(
            text.contains(
                "      lines: { to: Line, inverse: order, toMany: true, ordered: true, optional: false, "
                    + "deleteRule: cascade, minCount: 1, maxCount: 50 }\n"))
        #expect(text.contains("    uniquenessConstraints: [[number], [placed, number]]\n"))
    }

    @Test func defaultValuesOfEveryTypeRoundTrip() throws {
        try Self.expectRoundTrip(WriterFixture.everyDefault)
    }

    @Test func eachDefaultRoundTripsOnItsOwn() throws {
        for attribute in WriterFixture.everyDefault.entities[0].attributes {
            let model = ManagedObjectModel(entities: [EntityDescription(name: "Thing", attributes: [attribute])])
            try Self.expectRoundTrip(model)
        }
    }

    @Test func namesThatYAMLWouldReadAsNullsOrBooleansAreQuoted() throws {
        let words = ["yes", "No", "on", "OFF", "y", "n", "true", "False", "null", "Nothing", "e5", "x_1"]
        let model = ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Null", attributes: words.map { AttributeDescription(name: $0, type: .string) },
                    relationships: [RelationshipDescription(name: "on_", destinationEntity: "True")],
                    uniquenessConstraints: [["yes", "null"]], indexes: [["No"]]),
                EntityDescription(name: "True", parentEntity: "Null"),
            ],
            fetchRequestTemplates: ["off": FetchRequestTemplate(entity: "Null", predicate: "yes == 'no'")])
        let text = try Self.expectRoundTrip(model)
        #expect(text.contains("  \"Null\":\n"))
        #expect(text.contains("      \"null\": string\n"))
        #expect(text.contains("      Nothing: string\n"), "a plain name stays plain")
        #expect(text.contains("    uniquenessConstraints: [[\"yes\", \"null\"]]\n"))
    }

    /// Names that are not identifiers fail validation today, but an inferred model takes CSV headers as written:
    /// the writer must still spell them so that YAML gives them back exactly.
    @Test func namesThatAreNotIdentifiersComeBackExactlyFromTheYAML() throws {
        let names = WriterFixture.awkwardTexts.filter { !$0.isEmpty }
        let model = ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "first name: #1", attributes: names.map { AttributeDescription(name: $0, type: .string) },
                    uniquenessConstraints: [names])
            ],
            fetchRequestTemplates: Dictionary(
                uniqueKeysWithValues: names.map { ($0, FetchRequestTemplate(entity: "first name: #1", predicate: $0)) }
            ))
        let text = model.modelFileYAML
        var parser = ModelFileParser(file: "written.model.yml")
        let parsed = parser.parse(try Yams.compose(yaml: text))
        #expect(parser.errors.isEmpty, "\(parser.errors)")
        #expect(parsed == model)
        #expect(
            parsed.entities[0].attributes.map { Array($0.name.unicodeScalars) }
                == names.map { Array($0.unicodeScalars) })
        #expect(parsed.versionHash == model.versionHash)
    }

    @Test func awkwardTextsInDefaultsRegexesAndPredicatesRoundTrip() throws {
        // A decomposed é equals "café" as a Swift string; its scalars must still come back as written.
        let texts = WriterFixture.awkwardTexts + ["cafe\u{301}"]
        let model = ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Note",
                    attributes: texts.enumerated().map { index, text in
                        AttributeDescription(name: "text\(index)", type: .string, defaultValue: .string(text))
                    } + [
                        AttributeDescription(name: "code", type: .string, regularExpression: #"^[#:"'\\ ]+ \d{2}$"#)
                    ])
            ],
            fetchRequestTemplates: [
                "awkward": FetchRequestTemplate(
                    entity: "Note", predicate: #"text0 == "a: b # c" AND code MATCHES '\\d+' OR text1 == $V"#)
            ])
        try Self.expectRoundTrip(model)
        let again = try ManagedObjectModel(yaml: model.modelFileYAML)
        let written = again.entities[0].attributes.compactMap { attribute -> [Unicode.Scalar]? in
            guard case .string(let text) = attribute.defaultValue else { return nil }
            return Array(text.unicodeScalars)
        }
        #expect(written == texts.map { Array($0.unicodeScalars) }, "the very scalars come back, not just equal strings")
    }

    @Test func aDateDefaultMayBeSecondsSince1970AndATransformableDefaultIsBase64() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Thing:
                    attributes:
                      when: { type: date, default: -1.25 }
                      size: { type: transformable, transformer: JSON, default: "eyJ3IjoyfQ==" }
                """)
        let attributes = model.entities[0].attributes
        #expect(attributes[0].defaultValue == .date(Date(timeIntervalSince1970: -1.25)))
        #expect(attributes[1].defaultValue == .transformable(Data(#"{"w":2}"#.utf8)))
    }

    @Test func quotingEscapesWhatYAMLWouldFoldOrRefuse() {
        #expect(ModelFileWriter.text("plain_1.5-x") == "plain_1.5-x")
        #expect(ModelFileWriter.text("-5") == "\"-5\"")
        #expect(ModelFileWriter.text("") == "\"\"")
        #expect(ModelFileWriter.text("NULL") == "\"NULL\"")
        #expect(
            ModelFileWriter.quoted("a\"b\\c\nd\te\r\u{7}\u{85}\u{2028}\u{FEFF}é")
                == #""a\"b\\c\nd\te\r\u0007\u0085\u2028\uFEFFé""#)
    }

    @Test func aValueNoModelFileCanSpellFailsToLoadInsteadOfLoadingAnotherModel() {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Reading", attributes: [AttributeDescription(name: "level", type: .double, maxValue: .infinity)])
        ])
        #expect(throws: ModelError.self) { try ManagedObjectModel(yaml: model.modelFileYAML) }
    }
}
