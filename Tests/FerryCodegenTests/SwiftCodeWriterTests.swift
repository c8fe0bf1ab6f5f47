import FerryCodegen
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// How generated files reach the disk: machine files rewritten, human files written once, unchanged files untouched.
@Suite struct SwiftCodeWriterTests {
    static let model: ManagedObjectModel = {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Category", attributes: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Product", attributes: [AttributeDescription(name: "sku", type: .string)]),
        ])
    }()

    static let generator = SwiftModelGenerator(model: model, modelTypeName: "ShopModel", source: "shop.model.yml")

    private func text(_ folder: URL, _ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func humanFilesAreWrittenOnceAndMachineFilesEveryTimeTheyDiffer() throws {
        try TestSupport.withTemporaryFolder { folder in
            let output = folder.appendingPathComponent("Generated")
            let writer = SwiftCodeWriter(outputFolder: output.path)
            let first = try writer.write(Self.generator)
            #expect(
                first.written.map { ($0 as NSString).lastPathComponent }.sorted() == [
                    "Category.swift", "Product.swift", "ShopModel.swift", "_Category.swift", "_Product.swift",
                ])
            #expect(first.unchanged.isEmpty && first.kept.isEmpty)

            let second = try writer.write(Self.generator)
            #expect(second.written.isEmpty)
            #expect(second.unchanged.count == 3)
            #expect(second.kept.count == 2)

            // The human file is the user's: their edits stay. A machine file edited by hand is put back.
            let mine = "import FerryStore\n\nclass Product: _Product {\n    override func awakeFromInsert() {}\n}\n"
            try Data(mine.utf8).write(to: output.appendingPathComponent("Product.swift"))
            try Data("// edited\n".utf8).write(to: output.appendingPathComponent("_Product.swift"))
            let third = try writer.write(Self.generator)
            #expect(third.written == [output.appendingPathComponent("_Product.swift").path])
            #expect(try text(output, "Product.swift") == mine)
            #expect(try text(output, "_Product.swift") == Self.generator.machineFile(for: "Product").contents)
        }
    }

    @Test func aHumanFileAnywhereUnderTheHumanFolderIsKept() throws {
        try TestSupport.withTemporaryFolder { folder in
            let sources = folder.appendingPathComponent("Sources/App")
            let models = sources.appendingPathComponent("Models")
            try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
            try Data("class Category: _Category {}\n".utf8).write(to: models.appendingPathComponent("Category.swift"))
            let writer = SwiftCodeWriter(
                outputFolder: sources.appendingPathComponent("Generated").path, humanFolder: sources.path)
            let report = try writer.write(Self.generator)
            #expect(report.kept == [models.appendingPathComponent("Category.swift").path])
            #expect(report.written.contains(sources.appendingPathComponent("Product.swift").path))
            #expect(!FileManager.default.fileExists(atPath: sources.appendingPathComponent("Category.swift").path))
        }
    }

    @Test func theSingleFileHasDefaultHumanClassesOnlyForEntitiesWithoutOne() throws {
        try TestSupport.withTemporaryFolder { folder in
            let target = folder.appendingPathComponent("App")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try Data("class Product: _Product {}\n".utf8).write(to: target.appendingPathComponent("Product.swift"))
            let output = folder.appendingPathComponent("work/Shop+Ferry.swift").path
            let writer = SwiftCodeWriter(
                outputFolder: folder.appendingPathComponent("work").path, humanFolder: target.path)
            #expect(try writer.writeSingleFile(Self.generator, to: output))
            let text = try String(contentsOfFile: output, encoding: .utf8)
            #expect(text.contains("class Category: _Category {}"))
            #expect(!text.contains("class Product: _Product {}"))
            #expect(text.contains("class _Product: ManagedObject, EntityClass {"))
            #expect(text.contains("enum ShopModel {"))
            #expect(text.components(separatedBy: "import FerryStore").count == 2)
            // Unchanged: not written again.
            #expect(try writer.writeSingleFile(Self.generator, to: output) == false)
        }
    }
}
