import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// The versions of an `.xcdatamodeld` as a migration chain: their order, the checks of that order, renaming
/// identifiers read from `elementID` and written back, and identifiers kept across versions.
@Suite("Xcode model versions as a migration chain")
struct XcodeModelVersionChainTests {
    /// Writes an `.xcdatamodeld` named `App` holding one version per name (each with one entity `Item` and an
    /// attribute named after the version, so each has its own hash), `current` named in `.xccurrentversion`.
    static func makeBundle(in folder: URL, versions: [String], current: String) throws -> String {
        let bundle = folder.appendingPathComponent("App.xcdatamodeld")
        for (index, name) in versions.enumerated() {
            let version = bundle.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            let contents = XcodeModelFixture.contents(
                """
                <entity name="Item"><attribute name="a\(index)" optional="YES" attributeType="String"/></entity>
                """)
            try contents.write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        let plist = ["_XCCurrentVersionName": current + ".xcdatamodel"]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try data.write(to: bundle.appendingPathComponent(".xccurrentversion"))
        return bundle.path
    }

    @Test("Versions are ordered by name with numbers compared as numbers, whatever order the folder lists them in")
    func naturalOrder() throws {
        try TestSupport.withTemporaryFolder { folder in
            let names = ["Model 10", "Model", "Model 9", "Model 2", "Model 2.1"]
            let path = try Self.makeBundle(in: folder, versions: names, current: "Model 10")
            let bundle = try XcodeModelBundle(at: path)
            #expect(bundle.versions.map(\.name) == ["Model", "Model 2", "Model 2.1", "Model 9", "Model 10"])
            #expect(try bundle.migrationChain().map(\.name) == bundle.versions.map(\.name))
            let chain = try VersionedModelFolder(contentsOf: path)
            #expect(chain.versions.map(\.name) == ["Model", "Model 2", "Model 2.1", "Model 9", "Model 10"])
            #expect(chain.versions.map(\.number) == [1, 2, 3, 4, 5])
            #expect(chain.current.model.entity(named: "Item")?.attribute(named: "a0") != nil)
        }
        #expect(XcodeModelBundle.naturalOrder("Catalog", "Catalog 2") < 0)
        #expect(XcodeModelBundle.naturalOrder("Catalog 9", "Catalog 10") < 0)
        #expect(XcodeModelBundle.naturalOrder("Catalog 10", "Catalog 9") > 0)
        #expect(XcodeModelBundle.naturalOrder("v0010", "v9") > 0)
        #expect(XcodeModelBundle.naturalOrder("Catalog 2", "Catalog 02") == 0)
    }

    @Test("A current version that is not the last, or two names with no order, are refused as a chain")
    func doubtfulOrderIsRefused() throws {
        try TestSupport.withTemporaryFolder { folder in
            let draft = folder.appendingPathComponent("draft")
            let path = try Self.makeBundle(in: draft, versions: ["Model", "Model 2", "Model 3"], current: "Model 2")
            // The current version still loads as the model; only the chain is refused.
            #expect(try ManagedObjectModel.load(from: path).entity(named: "Item")?.attribute(named: "a1") != nil)
            let error = try #require(throws: ModelError.self) { try VersionedModelFolder(contentsOf: path) }
            #expect(error.code == .invalidValue)
            #expect(error.message.contains("the current version 'Model 2' is not the last: 'Model 3' comes after it"))
            let tie = folder.appendingPathComponent("tie")
            let tied = try Self.makeBundle(in: tie, versions: ["Model", "Model 2", "Model 02"], current: "Model 2")
            let tieError = try #require(throws: ModelError.self) { try VersionedModelFolder(contentsOf: tied) }
            #expect(tieError.message.contains("the versions 'Model 02' and 'Model 2' have no order"))
        }
    }

    @Test("The fixture's versions are a chain of three with the stage file beside its version")
    func shopChain() throws {
        let path = XcodeModelFixture.path("Shop.xcdatamodeld")
        #expect(VersionedModelFolder.isVersionedModel(path))
        #expect(VersionedModelFolder.isVersionedModel(path + "/"))
        #expect(!VersionedModelFolder.isVersionedModel(path + "/Shop 2.xcdatamodel"))
        let chain = try VersionedModelFolder(contentsOf: path)
        #expect(chain.versions.map(\.name) == ["Shop", "Shop 2", "Shop 3"])
        #expect(
            chain.versions.map { $0.stagePath.map { ($0 as NSString).lastPathComponent } }
                == [nil, nil, "Shop 3.migration.yml"])
        #expect(chain.current.model == (try ManagedObjectModel.load(from: path)))
        let hash = try ManagedObjectModel.load(from: path + "/Shop 2.xcdatamodel").versionHash
        #expect(chain.version(withHash: hash)?.name == "Shop 2")
    }

    @Test("elementID is read as the renaming identifier of entities, attributes and relationships")
    func elementIDIsTheRenamingIdentifier() throws {
        let text = XcodeModelFixture.contents(
            """
            <entity name="Product" elementID="Item">
                <attribute name="title" optional="YES" attributeType="String" elementID="name"/>
                <attribute name="sku" attributeType="String" elementID=""/>
                <relationship name="vendor" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Vendor" inverseName="products" inverseEntity="Vendor" elementID="supplier"/>
            </entity>
            <entity name="Vendor">
                <relationship name="products" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Product" inverseName="vendor" inverseEntity="Product"/>
            </entity>
            """)
        let file = try ModelFile(xcodeContents: text, path: XcodeModelFixture.contentsPath)
        let product = try #require(file.model.entity(named: "Product"))
        #expect(product.renamingIdentifier == "Item")
        #expect(product.attribute(named: "title")?.renamingIdentifier == "name")
        #expect(product.attribute(named: "sku")?.renamingIdentifier == nil)
        #expect(product.relationship(named: "vendor")?.renamingIdentifier == "supplier")
        #expect(file.model.entity(named: "Vendor")?.renamingIdentifier == nil)
        #expect(file.warnings.isEmpty, "\(file.warnings)")
        // Written back as elementID, they read back equal, with the same hash, and as YAML too.
        let xml = file.model.xcodeModelContents
        #expect(xml.contains("<entity name=\"Product\" representedClassName=\"Product\" elementID=\"Item\""))
        #expect(xml.contains("elementID=\"name\"/>"))
        #expect(xml.contains("elementID=\"supplier\"/>"))
        let again = try ModelFile(xcodeContents: xml, path: "written/contents").model
        #expect(again == file.model)
        #expect(again.versionHash == file.model.versionHash)
        let yaml = try ManagedObjectModel(yaml: file.model.modelFileYAML)
        #expect(yaml == file.model)
        #expect(yaml.versionHash == file.model.versionHash)
    }

    @Test("An identifier kept across versions names the element of the version before, as Core Data matches them")
    func identifiersChainAcrossVersions() throws {
        let chain = try VersionedModelFolder(contentsOf: XcodeModelFixture.path("Shop.xcdatamodeld"))
        let (v1, v2, v3) = (chain.versions[0].model, chain.versions[1].model, chain.versions[2].model)
        // Shop 3 keeps `label`'s identifier `name`; Shop 2 calls that attribute `title`.
        #expect(v3.entity(named: "Product")?.attribute(named: "label")?.renamingIdentifier == "name")
        let fromV2 = v3.chainingRenamingIdentifiers(from: v2)
        #expect(fromV2.entity(named: "Product")?.renamingIdentifier == "Item")
        #expect(fromV2.entity(named: "Product")?.attribute(named: "label")?.renamingIdentifier == "title")
        #expect(fromV2.entity(named: "Warehouse")?.renamingIdentifier == nil)
        #expect(fromV2.versionHash == v3.versionHash)
        // From Shop, which has `name` itself, the identifier is kept.
        let fromV1 = v3.chainingRenamingIdentifiers(from: v1)
        #expect(fromV1.entity(named: "Product")?.attribute(named: "label")?.renamingIdentifier == "name")
        #expect(v2.chainingRenamingIdentifiers(from: v1) == v2)
        // An entity renamed twice, keeping its identifier.
        let twice = try ManagedObjectModel(
            yaml: "entities:\n  Goods:\n    renamingIdentifier: Item\n    attributes: { sku: string }\n")
        let product = try ManagedObjectModel(
            yaml: "entities:\n  Product:\n    renamingIdentifier: Item\n    attributes: { sku: string }\n")
        #expect(twice.chainingRenamingIdentifiers(from: product).entities[0].renamingIdentifier == "Product")
    }
}
