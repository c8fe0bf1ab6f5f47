import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// What Ferry cannot read in an Xcode model is an error naming the `contents` file, the line and the element.
@Suite("Errors in Xcode models")
struct XcodeModelErrorTests {
    let file = XcodeModelFixture.contentsPath

    @Test("A composite attribute and its definition are errors at their lines")
    func compositeAttribute() {
        let lines = XcodeModelFixture.errors(
            """
            <entity name="Person">
                <attribute name="home" optional="YES" attributeType="Composite" composite="Address"/>
            </entity>
            <composite name="Address">
                <attribute name="city" optional="YES" attributeType="String"/>
            </composite>
            """)
        #expect(
            lines == [
                "\(file):4: entity Person, attribute home: composite attribute of type 'Address' is not supported by "
                    + "Ferry; model its fields as attributes",
                "\(file):6: composite attribute 'Address' is not supported by Ferry; model its fields as attributes "
                    + "of the entities that use it",
            ])
        let error = XcodeModelFixture.thrown(XcodeModelFixture.contents("<composite name=\"Address\"/>"))
        #expect(error?.allErrors.map(\.code).contains(.unsupportedFeature) == true)
    }

    @Test("Attribute types Ferry cannot store, unknown types and a transformable without a transformer are errors")
    func attributeTypes() {
        let lines = XcodeModelFixture.errors(
            """
            <entity name="Item">
                <attribute name="anything" optional="YES" transient="YES" attributeType="Undefined"/>
                <attribute name="price" optional="YES" attributeType="Money"/>
                <attribute name="count" optional="YES" attributeType="Integer 23"/>
                <attribute name="colors" optional="YES" attributeType="Transformable"/>
            </entity>
            """)
        #expect(
            lines == [
                "\(file):4: entity Item, attribute anything: attribute type 'Undefined' has no column in a Ferry "
                    + "store; Ferry does not support it",
                "\(file):5: entity Item, attribute price: unknown attributeType 'Money'; expected one of Integer 16, "
                    + "Integer 32, Integer 64, Decimal, Double, Float, String, Boolean, Date, Binary, UUID, URI, "
                    + "Transformable",
                "\(file):6: entity Item, attribute count: unknown attributeType 'Integer 23'; did you mean "
                    + "'Integer 32'?",
                "\(file):7: entity Item, attribute colors: a Transformable attribute needs valueTransformerName=\"NAME\", "
                    + "the name of a Codable transformer registered with Ferry (Core Data's default archiving "
                    + "transformer has no Ferry equivalent)",
            ])
    }

    @Test("Problems of meaning found by validation point at the XML line of their element")
    func validationUsesXMLLines() {
        let lines = XcodeModelFixture.errors(
            """
            <entity name="Product">
                <attribute name="sku" attributeType="String"/>
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="cheap"/>
                <relationship name="category" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Categry"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="skew"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            """)
        #expect(lines.count == 3)
        #expect(
            lines[0]
                == "\(file):5: entity Product, attribute price: defaultValueString=\"cheap\" is not a valid decimal")
        #expect(lines[1].hasPrefix("\(file):6: entity Product, relationship category: unknown destination entity"))
        #expect(lines[2].hasPrefix("\(file):8: entity Product: "))
        #expect(lines[2].contains("skew"))
    }

    @Test("Relationships Ferry cannot keep are errors: transient, an unknown delete rule, a to-one with a count")
    func relationshipErrors() {
        let lines = XcodeModelFixture.errors(
            """
            <entity name="Node">
                <relationship name="cache" optional="YES" maxCount="1" transient="YES" deletionRule="Nullify" destinationEntity="Node" inverseName="cache" inverseEntity="Node"/>
                <relationship name="next" optional="YES" maxCount="1" deletionRule="Explode" destinationEntity="Node" inverseName="next" inverseEntity="Node"/>
                <relationship name="peers" optional="YES" maxCount="5" deletionRule="Nullify" destinationEntity="Node"/>
            </entity>
            """)
        #expect(
            lines == [
                "\(file):4: entity Node, relationship cache: a transient relationship is not supported by Ferry: "
                    + "relationships are stored",
                "\(file):5: entity Node, relationship next: unknown deletionRule 'Explode'; expected one of Nullify, "
                    + "Cascade, Deny, No Action",
                "\(file):6: entity Node, relationship peers: maxCount=\"5\" on a to-one relationship; write "
                    + "toMany=\"YES\" for a to-many",
            ])
    }

    @Test("An index on an expression is an error; an R-tree index is an ordinary one, with a warning")
    func fetchIndexes() throws {
        let lines = XcodeModelFixture.errors(
            """
            <entity name="Place">
                <attribute name="x" optional="YES" attributeType="Double"/>
                <fetchIndex name="byDistance">
                    <fetchIndexElement expression="x * x" expressionType="Double" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            """)
        #expect(
            lines == [
                "\(file):6: entity Place: fetch index byDistance: an index on an expression is not supported by Ferry; "
                    + "index a property, or derive an attribute from the expression and index that"
            ])
        let warnings = try XcodeModelFixture.warnings(
            """
            <entity name="Place">
                <attribute name="x" optional="YES" attributeType="Double"/>
                <fetchIndex name="byX">
                    <fetchIndexElement property="x" type="RTree" order="ascending"/>
                </fetchIndex>
            </entity>
            """)
        #expect(
            warnings == ["\(file):6: entity Place: fetch index byX: type RTree is made as an ordinary (B-tree) index"])
    }

    @Test("Compound indexes of older files are indexes; bounds on binary values are warnings")
    func olderIndexesAndBinaryBounds() throws {
        let file = try ModelFile(
            xcodeContents: XcodeModelFixture.contents(
                """
                <entity name="Event">
                    <attribute name="kind" optional="YES" attributeType="String"/>
                    <attribute name="at" optional="YES" attributeType="Date"/>
                    <attribute name="payload" optional="YES" attributeType="Binary" maxValueString="1024"/>
                    <compoundIndexes>
                        <compoundIndex>
                            <index value="kind"/>
                            <index value="at"/>
                        </compoundIndex>
                    </compoundIndexes>
                </entity>
                """), path: file)
        #expect(file.model.entity(named: "Event")?.indexes == [["kind", "at"]])
        #expect(
            file.warnings.map(\.description) == [
                "\(self.file):6: entity Event, attribute payload: maxValueString=\"1024\" is ignored: Ferry checks no "
                    + "bounds on binary values"
            ])
    }

    @Test("Text that is not well-formed XML is one error with its line")
    func malformedXML() {
        let error = XcodeModelFixture.thrown(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Item">
                    <attribute name="title" attributeType="String">
                </entity>
            </model>
            """)
        #expect(error?.code == .invalidXML)
        #expect(error?.line == 5)
        #expect(error?.file == file)
    }

    @Test("A root other than <model>, or a model without entities, is an error")
    func wrongRoot() {
        let notModel = XcodeModelFixture.thrown("<plist version=\"1.0\"><dict/></plist>")
        #expect(notModel?.description == "\(file):1: the root element is <plist>; expected <model>, as Xcode writes")
        let empty = XcodeModelFixture.thrown(XcodeModelFixture.contents(""))
        #expect(empty?.code == .missingKey)
        #expect(empty?.line == 2)
    }

    @Test("Unknown settings and elements are warnings, never dropped silently")
    func unknownSettingsAreWarnings() throws {
        let warnings = try XcodeModelFixture.warnings(
            """
            <entity name="Item" renamingIdentifier="Thing">
                <attribute name="title" optional="YES" attributeType="String" spotlightIndexingEnabled="YES" sparkle="YES">
                    <userInfo><entry key="hint" value="headline"/></userInfo>
                </attribute>
                <gadget/>
            </entity>
            <fetchRequest name="recent" entity="Item" predicateString="title != nil" fetchLimit="10"/>
            """)
        #expect(
            warnings == [
                "\(file):3: entity Item: renamingIdentifier=\"Thing\" is ignored: Xcode keeps a renaming identifier "
                    + "as elementID=\"Thing\"; write that",
                "\(file):4: entity Item, attribute title: setting sparkle=\"YES\" is not one Ferry knows; it is ignored",
                "\(file):4: entity Item, attribute title: spotlightIndexingEnabled=\"YES\" is ignored: Ferry has no "
                    + "Spotlight or external records",
                "\(file):5: entity Item, attribute title: user info of attribute title (hint) is ignored: Ferry's model "
                    + "has no user info",
                "\(file):7: entity Item: element <gadget> is not one Ferry knows; it is ignored",
                "\(file):9: fetch request template recent: setting fetchLimit=\"10\" is ignored: a Ferry template "
                    + "keeps its predicate only",
            ])
    }

    @Test(
        "An .xcdatamodeld whose .xccurrentversion names no version, or has several versions and none named, is refused")
    func currentVersionProblems() throws {
        try TestSupport.withTemporaryFolder { folder in
            let bundle = folder.appendingPathComponent("App.xcdatamodeld")
            for version in ["App", "App 2"] {
                let versionFolder = bundle.appendingPathComponent("\(version).xcdatamodel")
                try FileManager.default.createDirectory(at: versionFolder, withIntermediateDirectories: true)
                try Data(XcodeModelFixture.contents("<entity name=\"Item\"/>").utf8)
                    .write(to: versionFolder.appendingPathComponent("contents"))
            }
            #expect(throws: ModelError.self) { try ModelFile(contentsOf: bundle.path) }
            do {
                _ = try ModelFile(contentsOf: bundle.path)
            } catch let error as ModelError {
                #expect(error.code == .invalidValue)
                #expect(error.message.contains("2 versions and no .xccurrentversion"))
            }
            let marker = bundle.appendingPathComponent(".xccurrentversion")
            try Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>App 3.xcdatamodel</string></dict></plist>
                """.utf8
            ).write(to: marker)
            do {
                _ = try ModelFile(contentsOf: bundle.path)
                Issue.record("loaded a model whose current version does not exist")
            } catch let error as ModelError {
                #expect(error.file == marker.path)
                #expect(
                    error.message
                        == "_XCCurrentVersionName is 'App 3.xcdatamodel', which is not a version here; expected one "
                        + "of 'App.xcdatamodel', 'App 2.xcdatamodel'")
            }
            try Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>App 2.xcdatamodel</string></dict></plist>
                """.utf8
            ).write(to: marker)
            #expect(try ModelFile(contentsOf: bundle.path).model.entities.map(\.name) == ["Item"])
        }
    }

    @Test("A missing model folder, a version without contents, and an Xcode 3 binary model are refused")
    func missingParts() throws {
        try TestSupport.withTemporaryFolder { folder in
            let missing = folder.appendingPathComponent("None.xcdatamodeld").path
            #expect(throws: ModelError.self) { try ManagedObjectModel.load(from: missing) }
            let legacy = folder.appendingPathComponent("Old.xcdatamodel")
            try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: true)
            do {
                _ = try ModelFile(contentsOf: legacy.path)
                Issue.record("loaded an empty .xcdatamodel")
            } catch let error as ModelError {
                #expect(error.code == .fileNotFound)
            }
            try Data([0x62, 0x70, 0x6c, 0x69, 0x73, 0x74]).write(to: legacy.appendingPathComponent("elements"))
            do {
                _ = try ModelFile(contentsOf: legacy.path)
                Issue.record("loaded an Xcode 3 model")
            } catch let error as ModelError {
                #expect(error.code == .unsupportedFeature)
                #expect(error.message.hasPrefix("an Xcode 3 model"))
            }
        }
    }
}
