import FerryTestSupport
import Foundation
import Testing

/// `ferry generate swift`, run as the built binary: its files, its second run, and its refusals.
struct GenerateCommandTests {
    let ferry = BuiltCommand(product: "ferry")
    let xcodeModel = TestSupport.packageRoot
        .appendingPathComponent("Tests/FerryStoreTests/Fixtures/Xcode/Catalog.xcdatamodeld").path

    @Test func anXcodeModelGivesTwoFilesPerEntityAndASecondRunChangesNothing() throws {
        try TestSupport.withTemporaryFolder { folder in
            let output = folder.appendingPathComponent("Model").path
            let first = try ferry.run(["generate", "swift", xcodeModel, "--output", output])
            #expect(first.status == 0, "\(first.standardError)")
            #expect(
                first.standardError.contains(
                    "generated 6 entities of Catalog.xcdatamodeld: 13 files written, 0 unchanged, 0 human kept"))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: output).sorted() == [
                    "Animal.swift", "CatalogModel.swift", "Category.swift", "Dog.swift", "Order.swift",
                    "OrderItem.swift",
                    "Product.swift", "_Animal.swift", "_Category.swift", "_Dog.swift", "_Order.swift",
                    "_OrderItem.swift",
                    "_Product.swift",
                ])
            let machine = try String(contentsOfFile: output + "/_Product.swift", encoding: .utf8)

            let second = try ferry.run(["generate", "swift", "--model", xcodeModel, "--output", output])
            #expect(second.status == 0, "\(second.standardError)")
            #expect(second.standardOutput.split(separator: "\n").allSatisfy { $0.hasPrefix("kept ") })
            #expect(second.standardError.contains("0 files written, 7 unchanged, 6 human kept"))
            #expect(try String(contentsOfFile: output + "/_Product.swift", encoding: .utf8) == machine)
        }
    }

    @Test func aModelGivenTwiceOrNotAtAllIsAUsageError() throws {
        let twice = try ferry.run(["generate", "swift", xcodeModel, "--model", xcodeModel, "--output", "/tmp/x"])
        #expect(twice.status == 64)
        #expect(twice.standardError.contains("give the model once"))
        let badName = try ferry.run(["generate", "swift", xcodeModel, "--output", "/tmp/x", "--name", "2Model"])
        #expect(badName.status == 64)
    }

    @Test func anInvalidModelStopsWithTheConfigurationExitCodeAndWritesNothing() throws {
        try TestSupport.withTemporaryFolder { folder in
            let model = folder.appendingPathComponent("bad.model.yml")
            try Data("entities:\n  Product:\n    attributes:\n      sku: { type: strnig }\n".utf8).write(to: model)
            let output = folder.appendingPathComponent("Model").path
            let result = try ferry.run(["generate", "swift", model.path, "--output", output])
            #expect(result.status == 78)
            #expect(result.standardError.contains("bad.model.yml"))
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    @Test func helpDescribesTheFilesWritten() throws {
        let help = try ferry.run(["generate", "swift", "--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("_Product.swift"))
        #expect(help.standardOutput.contains("--human-output"))
    }
}
