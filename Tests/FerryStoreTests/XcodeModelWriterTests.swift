import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

@Suite("Writing Xcode models")
struct XcodeModelWriterTests {
    @Test("An Xcode model converted to YAML reads back to the same model and version hash")
    func xcodeToYAML() throws {
        for name in ["Catalog.xcdatamodeld", "Notes2011.xcdatamodel", "Shuffled.xcdatamodel"] {
            let model = try ManagedObjectModel.load(from: XcodeModelFixture.path(name))
            let again = try ManagedObjectModel(yaml: model.modelFileYAML)
            #expect(again == model, "\(name)")
            #expect(again.versionHash == model.versionHash, "\(name)")
        }
    }

    @Test("A model written as Xcode XML reads back to the same model and version hash")
    func modelToXcodeAndBack() throws {
        let models = [
            try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.model.yml")),
            try ManagedObjectModel.load(from: XcodeModelFixture.path("Shuffled.model.yml")),
            WriterFixture.everySetting, WriterFixture.everyDefault,
        ]
        for model in models {
            let file = try ModelFile(xcodeContents: model.xcodeModelContents, path: "written/contents")
            #expect(file.model == model)
            #expect(file.model.versionHash == model.versionHash)
            // Only validation's own warnings (a relationship without an inverse): nothing written is ignored.
            #expect(file.warnings.allSatisfy { $0.code != .ignoredXcodeSetting }, "\(file.warnings)")
        }
    }

    @Test("The XML uses Xcode's element and attribute names and spellings")
    func xcodeSpellings() throws {
        let model = try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.model.yml"))
        let lines = model.xcodeModelContents.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines[0] == "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>")
        #expect(lines[1].hasPrefix("<model type=\"com.apple.IDECoreDataModeler.DataModel\" documentVersion=\"1.0\""))
        #expect(
            lines.contains(
                "<attribute name=\"productCount\" optional=\"YES\" attributeType=\"Integer 64\" defaultValueString=\"0\" "
                    + "usesScalarValueType=\"YES\" derived=\"YES\" derivationExpression=\"products.@count\"/>"))
        #expect(
            lines.contains(
                "<attribute name=\"launched\" optional=\"YES\" attributeType=\"Date\" minDateTimeInterval=\"0.0\" "
                    + "defaultDateTimeInterval=\"788918400.0\"/>"))
        #expect(
            lines.contains(
                "<relationship name=\"items\" optional=\"YES\" toMany=\"YES\" minCount=\"1\" maxCount=\"50\" "
                    + "deletionRule=\"Cascade\" ordered=\"YES\" destinationEntity=\"OrderItem\" inverseName=\"order\" "
                    + "inverseEntity=\"OrderItem\"/>"))
        #expect(
            lines.contains(
                "<relationship name=\"orderItems\" optional=\"YES\" toMany=\"YES\" deletionRule=\"No Action\" "
                    + "destinationEntity=\"OrderItem\" inverseName=\"product\" inverseEntity=\"OrderItem\"/>"))
        #expect(lines.contains("<fetchIndex name=\"byCategoryAndPriceIndex\">"))
        #expect(
            lines.contains(
                "<fetchRequest name=\"expensiveProducts\" entity=\"Product\" predicateString=\"price &gt; $MIN_PRICE\"/>"
            ))
        #expect(lines.contains("<fetchRequest name=\"allOrders\" entity=\"Order\"/>"))
        // Well-formed: Foundation's parser reads it whole.
        _ = try XcodeXMLElement.parse(Data(model.xcodeModelContents.utf8), file: "written")
    }

    @Test("Texts with markup, quotes and line breaks survive the XML")
    func escapedTexts() throws {
        let model = ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Note",
                    attributes: [
                        AttributeDescription(
                            name: "body", type: .string, defaultValue: .string("a < b & \"c\"\nline 2\t'd'")),
                        AttributeDescription(name: "tag", type: .string, regularExpression: "^<[a-z]+>$"),
                    ])
            ],
            fetchRequestTemplates: [
                "quoted": FetchRequestTemplate(entity: "Note", predicate: "body == \"x & y\" OR body < 'z'")
            ])
        let again = try ModelFile(xcodeContents: model.xcodeModelContents).model
        #expect(again == model)
    }

    @Test("A model written as an .xcdatamodeld is a bundle of one version that loads back")
    func writesBundles() throws {
        let model = try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.model.yml"))
        try TestSupport.withTemporaryFolder { folder in
            let bundlePath = folder.appendingPathComponent("Shop.xcdatamodeld").path
            try model.writeXcodeModel(to: bundlePath)
            let bundle = try XcodeModelBundle(at: bundlePath)
            #expect(bundle.versions.map(\.name) == ["Shop"])
            #expect(try ManagedObjectModel.load(from: bundlePath) == model)
            let single = folder.appendingPathComponent("Shop.xcdatamodel").path
            try model.writeXcodeModel(to: single)
            try model.writeXcodeModel(to: single)  // replaces what is there
            #expect(try ManagedObjectModel.load(from: single).versionHash == model.versionHash)
            #expect(throws: ModelError.self) {
                try model.writeXcodeModel(to: folder.appendingPathComponent("x.yml").path)
            }
        }
    }
}
