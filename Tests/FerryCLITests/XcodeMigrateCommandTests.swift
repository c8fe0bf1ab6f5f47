import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// An Xcode `.xcdatamodeld` as a store's migration chain, through the built `ferry`: `ferry migrate` from the
/// first and the second version, `ferry inspect` listing the versions, a pipeline whose `model:` is the bundle, and
/// `ferry model convert` keeping renaming identifiers. The fixture is described in `XcodeModelMigrationTests`.
@Suite(.serialized)
struct XcodeMigrateCommandTests {
    let ferry = BuiltCommand(product: "ferry")
    static let bundle = TestSupport.packageRoot
        .appendingPathComponent("Tests/FerryStoreTests/Fixtures/Xcode/Shop.xcdatamodeld").path

    /// A folder with a store `s.sqlite` made by `ferry import` with the version `version`, from `csv`.
    func workspace(version: String, csv: String) throws -> URL {
        let folder = try TestSupport.makeTemporaryFolder()
        try csv.write(to: folder.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
        let result = try ferry.run(
            [
                "import", "items.csv", "--store", "s.sqlite", "--entity", "Item", "--key", "sku", "--model",
                Self.bundle + "/\(version).xcdatamodel",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        return folder
    }

    func values(_ sql: String, in folder: URL) throws -> [SQLiteValue] {
        let connection = try Connection(path: folder.appendingPathComponent("s.sqlite").path, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { $0[0] }
    }

    @Test func aStoreAtTheFirstVersionIsPlannedThenMigratedThroughEveryVersionAndInspectListsThem() throws {
        let folder = try workspace(version: "Shop", csv: "sku,name,quantity\nA-1,Anvil,3\nB-2,Bellows,20000\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try ferry.run(["migrate", "--store", "s.sqlite", "--model", Self.bundle, "--plan"], in: folder)
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(plan.standardOutput.contains("Shop → Shop 2: "))
        #expect(plan.standardOutput.contains("Shop 2 → Shop 3: "))
        #expect(plan.standardOutput.contains("rename attribute 'Item.name' to 'title'"))
        #expect(plan.standardOutput.contains("rename entity 'Item' to 'Product'"))
        #expect(try values("SELECT count(*) FROM ferry_model_history", in: folder) == [.integer(1)])

        let migrate = try ferry.run(["migrate", "--store", "s.sqlite", "--model", Self.bundle], in: folder)
        #expect(migrate.status == 0, "\(migrate.standardError)")
        #expect(try values("SELECT label FROM Product ORDER BY sku", in: folder) == [.text("Anvil"), .text("Bellows")])
        #expect(try values("SELECT quantity FROM Product ORDER BY sku", in: folder) == [.integer(3), .integer(20000)])
        #expect(
            try values("SELECT origin FROM Product ORDER BY sku", in: folder)
                == [.text("first supplier"), .text("first supplier")])
        #expect(try values("SELECT count(*) FROM Warehouse", in: folder) == [.integer(0)])

        let inspect = try ferry.run(["inspect", "--store", "s.sqlite"], in: folder)
        #expect(inspect.status == 0, "\(inspect.standardError)")
        for (number, version) in ["Shop", "Shop 2", "Shop 3"].enumerated() {
            let hash = try ManagedObjectModel.load(from: Self.bundle + "/\(version).xcdatamodel").versionHash
            let kind = number == 0 ? "created" : "migrated"
            #expect(inspect.standardOutput.contains("v\(number + 1) \(hash.prefix(12)) \(kind) "), "\(version)")
        }
        let again = try ferry.run(["migrate", "--store", "s.sqlite", "--model", Self.bundle], in: folder)
        #expect(again.standardOutput.contains("nothing to migrate"))
    }

    @Test func aStoreAtTheSecondVersionIsMigratedToTheCurrentOneKeepingTheRenamedAttribute() throws {
        let folder = try workspace(
            version: "Shop 2", csv: "sku,title,quantity,price\nA-1,Anvil,3,9.50\nB-2,Bellows,7,12.00\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let migrate = try ferry.run(["migrate", "--store", "s.sqlite", "--model", Self.bundle], in: folder)
        #expect(migrate.status == 0, "\(migrate.standardError)")
        #expect(migrate.standardOutput.contains("Shop 2 → Shop 3: "))
        #expect(!migrate.standardOutput.contains("Shop → Shop 2"))
        #expect(!migrate.standardOutput.contains("remove"))
        #expect(try values("SELECT label FROM Product ORDER BY sku", in: folder) == [.text("Anvil"), .text("Bellows")])
        #expect(try values("SELECT count(price) FROM Product", in: folder) == [.integer(2)])
        #expect(
            try values("SELECT kind FROM ferry_model_history ORDER BY version", in: folder)
                == [.text("created"), .text("migrated")])
    }

    @Test func aPipelineWhoseModelIsTheXcodeBundleMigratesTheStoreThenImports() throws {
        let folder = try workspace(version: "Shop", csv: "sku,name,quantity\nA-1,Anvil,3\nB-2,Bellows,20000\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let validate = try ferry.run(["validate", Self.bundle])
        #expect(validate.status == 0, "\(validate.standardError)")
        #expect(validate.standardOutput == "\(Self.bundle): valid model (2 entities)\n")
        #expect(validate.standardError == "")
        try "sku,label,quantity,price\nA-1,Anvil (steel),4,30.00\nC-3,Chisel,12,8.25\n".write(
            to: folder.appendingPathComponent("products.csv"), atomically: true, encoding: .utf8)
        let pipeline = """
            store: s.sqlite
            model: \(Self.bundle)
            steps:
              - import:
                  source: products.csv
                  entity: Product
                  key: sku
                  fields: { sku: sku, label: label, quantity: quantity, price: price }
                  mergePolicy: objectTrump
            """
        try pipeline.write(to: folder.appendingPathComponent("p.yml"), atomically: true, encoding: .utf8)
        let run = try ferry.run(["run", "p.yml"], in: folder)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            try values("SELECT kind FROM ferry_model_history ORDER BY version", in: folder)
                == [.text("created"), .text("migrated"), .text("migrated")])
        #expect(
            try values("SELECT label FROM Product ORDER BY sku", in: folder)
                == [.text("Anvil (steel)"), .text("Bellows"), .text("Chisel")])
        #expect(
            try values("SELECT quantity FROM Product ORDER BY sku", in: folder)
                == [.integer(4), .integer(20000), .integer(12)])
        #expect(
            try values("SELECT ifnull(origin, 'none') FROM Product ORDER BY sku", in: folder)
                == [.text("first supplier"), .text("first supplier"), .text("none")])
    }

    @Test func modelConvertKeepsRenamingIdentifiersBothWays() throws {
        try TestSupport.withTemporaryFolder { folder in
            let yamlPath = folder.appendingPathComponent("shop.model.yml").path
            let toYAML = try ferry.run(["model", "convert", Self.bundle, "--to", "yaml", "--output", yamlPath])
            #expect(toYAML.status == 0, "\(toYAML.standardError)")
            let yaml = try String(contentsOfFile: yamlPath, encoding: .utf8)
            #expect(yaml.contains("renamingIdentifier: Item"))
            #expect(yaml.contains("renamingIdentifier: name"))
            let original = try ManagedObjectModel.load(from: Self.bundle)
            #expect(try ManagedObjectModel.load(from: yamlPath) == original)

            let xcodePath = folder.appendingPathComponent("Shop.xcdatamodel").path
            let back = try ferry.run(["model", "convert", yamlPath, "--to", "xcdatamodel", "--output", xcodePath])
            #expect(back.status == 0, "\(back.standardError)")
            let contents = try String(contentsOfFile: xcodePath + "/contents", encoding: .utf8)
            #expect(contents.contains("<entity name=\"Product\" representedClassName=\"Product\" elementID=\"Item\""))
            #expect(
                contents.contains(
                    "<attribute name=\"label\" optional=\"YES\" attributeType=\"String\" elementID=\"name\"/>"))
            let again = try ManagedObjectModel.load(from: xcodePath)
            #expect(again == original)
            #expect(again.versionHash == original.versionHash)
        }
    }
}
