import Foundation

extension ModelFile {
    /// Loads the current version of the Xcode model at `path` (an `.xcdatamodeld` or `.xcdatamodel` folder).
    ///
    /// - Throws: ``ModelError``, as ``ModelFile/init(contentsOf:)``.
    init(xcodeModelAt path: String) throws {
        let bundle = try XcodeModelBundle(at: path)
        try self.init(xcodeVersionAt: bundle.currentVersion, path: path)
    }

    /// Loads one version of an Xcode model; `path` is what ``path`` reports (the version's folder by default).
    init(xcodeVersionAt version: XcodeModelBundle.Version, path: String? = nil) throws {
        let contents = version.contentsPath
        guard FileManager.default.fileExists(atPath: contents) else {
            let legacy = (version.path as NSString).appendingPathComponent("elements")
            if FileManager.default.fileExists(atPath: legacy) {
                throw ModelError(
                    .unsupportedFeature,
                    "an Xcode 3 model (a binary 'elements' archive, no XML 'contents'); open and save it in Xcode 4 "
                        + "or later, which writes the XML Ferry reads", file: version.path)
            }
            throw ModelError(.fileNotFound, "no 'contents' file in the .xcdatamodel folder", file: version.path)
        }
        guard let data = FileManager.default.contents(atPath: contents) else {
            throw ModelError(.unreadableFile, "cannot read the model's contents file", file: contents)
        }
        let (model, warnings) = try Self.readXcodeContents(data, file: contents)
        self.path = path ?? version.path
        self.model = model
        self.warnings = warnings
    }

    /// Parses and validates the XML `contents` of an Xcode model version.
    ///
    /// - Parameters:
    ///   - xcodeContents: the text of a `contents` file, as Xcode writes it.
    ///   - path: the name diagnostics give the text.
    /// - Throws: ``ModelError`` gathering every problem (as ``init(yaml:path:)``), or a single
    ///   ``ModelError/Code/invalidXML`` error when the text is not well-formed XML.
    public init(xcodeContents: String, path: String = "<string>") throws {
        try self.init(xcodeContents: Data(xcodeContents.utf8), path: path)
    }

    init(xcodeContents data: Data, path: String) throws {
        let (model, warnings) = try Self.readXcodeContents(data, file: path)
        self.path = path
        self.model = model
        self.warnings = warnings
    }

    /// The validated model in `data` and its warnings in file order; diagnostics name `path`.
    private static func readXcodeContents(
        _ data: Data, file path: String
    ) throws -> (ManagedObjectModel, [ModelWarning]) {
        let root = try XcodeXMLElement.parse(data, file: path)
        var reader = XcodeModelReader(file: path)
        let model = reader.read(root)
        var validator = ModelValidator(model: model, sourceMap: reader.sourceMap, file: path)
        validator.run()
        let errors = ModelError.inFileOrder(reader.errors + validator.errors)
        guard errors.isEmpty else { throw ModelError(gathering: errors, file: path) }
        let warnings = (reader.warnings + validator.warnings).enumerated()
            .sorted { ($0.element.line ?? Int.max, $0.offset) < ($1.element.line ?? Int.max, $1.offset) }
            .map(\.element)
        return (model, warnings)
    }
}
