import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// The Swift type of a transformable's values (`valueType` in YAML, `customClassName` in Xcode's XML): read, written
/// back, refused on other types, and kept out of the version hash.
@Suite struct TransformableValueTypeTests {
    static let yaml = """
        entities:
          Product:
            attributes:
              tags: { type: transformable, transformer: JSON, valueType: "[String]" }
              dimensions: { type: transformable, transformer: JSON }
        """

    @Test func aValueTypeIsReadAndWrittenBackInBothFormats() throws {
        let model = try ManagedObjectModel(yaml: Self.yaml)
        let product = try #require(model.entity(named: "Product"))
        #expect(product.attribute(named: "tags")?.valueTypeName == "[String]")
        #expect(product.attribute(named: "dimensions")?.valueTypeName == nil)
        #expect(model.modelFileYAML.contains(#"valueType: "[String]""#))
        #expect(try ManagedObjectModel(yaml: model.modelFileYAML) == model)
        let xml = model.xcodeModelContents
        #expect(xml.contains(#"valueTransformerName="JSON" customClassName="[String]""#))
        #expect(try ModelFile(xcodeContents: xml).model == model)
    }

    @Test func theXcodeFixturesCustomClassNameIsTheValueType() throws {
        let model = try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.xcdatamodeld"))
        #expect(model.entity(named: "Product")?.attribute(named: "tags")?.valueTypeName == "[String]")
    }

    @Test func theValueTypeDoesNotChangeTheVersionHash() throws {
        var without = try ManagedObjectModel(yaml: Self.yaml)
        let hash = without.versionHash
        without.entities[0].attributes[0].valueTypeName = nil
        #expect(without.versionHash == hash)
    }

    @Test func aValueTypeOnAnotherTypeIsAnError() {
        let errors = ModelFileFixture.errors(
            """
            entities:
              Product:
                attributes:
                  sku: { type: string, valueType: "[String]" }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("'valueType' applies to type transformable only, not string") == true)
    }
}
