import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry model convert` and `ferry validate` on Xcode models, run as the built binary.
struct ModelConvertCommandTests {
    let ferry = BuiltCommand(product: "ferry")
    let xcodeModel = TestSupport.packageRoot
        .appendingPathComponent("Tests/FerryStoreTests/Fixtures/Xcode/Catalog.xcdatamodeld").path

    @Test func anXcodeModelValidatesWithItsWarningsOnStandardError() throws {
        let result = try ferry.run(["validate", xcodeModel])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "\(xcodeModel): valid model (6 entities)\n")
        #expect(result.standardError.contains("Catalog 3.xcdatamodel/contents:79: configuration 'Cloud' is ignored"))
    }

    @Test func anXcodeModelConvertsToYAMLAndBackWithTheSameHash() throws {
        try TestSupport.withTemporaryFolder { folder in
            let yamlPath = folder.appendingPathComponent("catalog.model.yml").path
            let toYAML = try ferry.run(["model", "convert", xcodeModel, "--to", "yaml", "--output", yamlPath])
            #expect(toYAML.status == 0, "\(toYAML.standardError)")
            #expect(toYAML.standardOutput == "")
            #expect(toYAML.standardError.contains("wrote \(yamlPath) (6 entities, yaml)"))
            let original = try ManagedObjectModel.load(from: xcodeModel)
            #expect(try ManagedObjectModel.load(from: yamlPath) == original)

            let xcodePath = folder.appendingPathComponent("Catalog.xcdatamodel").path
            let back = try ferry.run(["model", "convert", yamlPath, "--to", "xcdatamodel", "--output", xcodePath])
            #expect(back.status == 0, "\(back.standardError)")
            let contents = try String(contentsOfFile: xcodePath + "/contents", encoding: .utf8)
            #expect(contents.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model "))
            #expect(try ManagedObjectModel.load(from: xcodePath).versionHash == original.versionHash)
            #expect(try ferry.run(["validate", xcodePath]).status == 0)
        }
    }

    @Test func anImportTakesAnXcodeModelAsItsModel() throws {
        try TestSupport.withTemporaryFolder { folder in
            let input = try TestSupport.write(
                Array("sku,price\nSKU-0001,2.50\nSKU-0002,3.10\n".utf8), to: "products.csv", in: folder)
            let store = folder.appendingPathComponent("catalog.sqlite").path
            let result = try ferry.run([
                "import", input, "--store", store, "--entity", "Product", "--key", "sku", "--model", xcodeModel,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try PersistentStore.storedModel(at: store) == (try ManagedObjectModel.load(from: xcodeModel)))
        }
    }

    @Test func aPipelineRunsWithAnXcodeModelAsItsModel() throws {
        try TestSupport.withTemporaryFolder { folder in
            try TestSupport.write(
                Array("sku,price\nSKU-0001,2.50\nSKU-0002,3.10\n".utf8), to: "products.csv", in: folder)
            let pipeline = folder.appendingPathComponent("nightly.yml")
            try Data(
                """
                store: catalog.sqlite
                model: \(xcodeModel)
                steps:
                  - import: { name: products, source: products.csv, entity: Product, key: sku }
                """.utf8
            ).write(to: pipeline)
            let validate = try ferry.run(["validate", pipeline.path])
            #expect(validate.status == 0, "\(validate.standardError)")
            let run = try ferry.run(["run", pipeline.path])
            #expect(run.status == 0, "\(run.standardError)")
            let store = folder.appendingPathComponent("catalog.sqlite").path
            #expect(try PersistentStore.storedModel(at: store) == (try ManagedObjectModel.load(from: xcodeModel)))
        }
    }

    @Test func aBrokenXcodeModelOrAWrongOutputIsRefused() throws {
        try TestSupport.withTemporaryFolder { folder in
            let version = folder.appendingPathComponent("Bad.xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(
                """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel">
                    <entity name="Person">
                        <attribute name="home" optional="YES" attributeType="Composite" composite="Address"/>
                    </entity>
                </model>
                """.utf8
            ).write(to: version.appendingPathComponent("contents"))
            let output = folder.appendingPathComponent("bad.model.yml").path
            let bad = try ferry.run(["model", "convert", version.path, "--to", "yaml", "--output", output])
            #expect(bad.status == 78)
            #expect(bad.standardError.contains("Bad.xcdatamodel/contents:4: entity Person, attribute home: composite"))
            #expect(!FileManager.default.fileExists(atPath: output))
            let validate = try ferry.run(["validate", version.path])
            #expect(validate.status == 78)

            let wrong = try ferry.run(["model", "convert", xcodeModel, "--to", "xcdatamodel", "--output", output])
            #expect(wrong.status == 64)
            #expect(wrong.standardError.contains(".xcdatamodel or .xcdatamodeld"))
        }
    }
}
