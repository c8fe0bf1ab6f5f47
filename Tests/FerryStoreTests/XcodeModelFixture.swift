import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// The Xcode models under `Fixtures/Xcode/`, written for these tests, and inline `contents` texts.
enum XcodeModelFixture {
    /// The folder of the Xcode fixtures.
    static let folder = TestSupport.packageRoot.appendingPathComponent("Tests/FerryStoreTests/Fixtures/Xcode")

    /// The path of a fixture in ``folder``.
    static func path(_ name: String) -> String {
        folder.appendingPathComponent(name).path
    }

    /// The path diagnostics name for inline texts.
    static let contentsPath = "App/Model.xcdatamodel/contents"

    /// A `contents` file around `entities` (the lines inside `<model>`), with the XML declaration on line 1 and
    /// `<model>` on line 2, so the first line of `entities` is line 3.
    static func contents(_ entities: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
        \(entities)
        </model>
        """
    }

    /// The lines of the ``ModelError`` reading `entities` throws; records an issue when it loads.
    static func errors(_ entities: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        thrown(contents(entities), sourceLocation: sourceLocation)?.allErrors.map(\.description) ?? []
    }

    /// The ``ModelError`` reading `text` throws; records an issue when it loads or throws something else.
    static func thrown(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ModelError? {
        ModelFileFixture.thrown(
            by: { try ModelFile(xcodeContents: text, path: contentsPath) }, sourceLocation: sourceLocation)
    }

    /// The warnings of `entities`, which must load.
    static func warnings(_ entities: String) throws -> [String] {
        try ModelFile(xcodeContents: contents(entities), path: contentsPath).warnings.map(\.description)
    }
}
