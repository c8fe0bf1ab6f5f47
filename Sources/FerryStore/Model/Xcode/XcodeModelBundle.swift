import Foundation

/// An Xcode model on disk: an `.xcdatamodeld` folder holding one `.xcdatamodel` folder per version and a
/// `.xccurrentversion` file naming the current one, or a single `.xcdatamodel` folder.
///
/// The versions are listed in the order Xcode numbers them (`Catalog`, `Catalog 2`, … `Catalog 10`), which is the
/// order an app's store moved through them; ``migrationChain()`` gives them as the chain a store migrates through,
/// checking that the order leaves no doubt:
///
/// ```swift
/// let bundle = try XcodeModelBundle(at: "App/Catalog.xcdatamodeld")
/// for version in bundle.versions {
///     let model = try version.load().model
///     print(version.name, version.name == bundle.currentVersion.name ? "(current)" : "", model.versionHash)
/// }
/// ```
public struct XcodeModelBundle: Sendable {
    /// One version of the model: an `.xcdatamodel` folder and its XML `contents` file.
    public struct Version: Sendable, Hashable {
        /// The version's name: its folder's name without `.xcdatamodel` (`Catalog 2`).
        public let name: String
        /// The `.xcdatamodel` folder.
        public let path: String
        /// The XML file Xcode keeps the version in, `contents` inside ``path``; diagnostics name it.
        public var contentsPath: String { (path as NSString).appendingPathComponent("contents") }

        /// Reads and validates this version.
        ///
        /// - Throws: ``ModelError``, as ``ModelFile/init(contentsOf:)``.
        public func load() throws -> ModelFile {
            try ModelFile(xcodeVersionAt: self)
        }
    }

    /// The path given: an `.xcdatamodeld` or `.xcdatamodel` folder.
    public let path: String
    /// Every version, oldest first by name, numbers compared as numbers; a lone `.xcdatamodel` is a bundle of one
    /// version.
    public let versions: [Version]
    /// The version `.xccurrentversion` names (the only one, for a lone `.xcdatamodel`).
    public let currentVersion: Version

    /// Finds the versions of the model at `path`.
    ///
    /// - Throws: ``ModelError``: ``ModelError/Code/fileNotFound`` when there is no such folder or no version in it;
    ///   ``ModelError/Code/invalidValue`` when `.xccurrentversion` names no version of the folder, or is missing while
    ///   there are several versions; ``ModelError/Code/invalidXML`` when `.xccurrentversion` cannot be read.
    public init(at path: String) throws {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: trimmed, isDirectory: &isFolder), isFolder.boolValue else {
            throw ModelError(.fileNotFound, "no such Xcode model folder", file: path)
        }
        self.path = path
        if (trimmed as NSString).pathExtension == "xcdatamodel" {
            let version = Version(name: Self.versionName(of: trimmed), path: trimmed)
            versions = [version]
            currentVersion = version
            return
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: trimmed)) ?? []
        // By name without the extension, numbers compared as numbers: `Catalog`, `Catalog 2`, … `Catalog 10` (see
        // `naturalOrder`); names the rule cannot tell apart keep a fixed order here and are refused as a chain.
        versions = names.filter { ($0 as NSString).pathExtension == "xcdatamodel" }
            .map { Version(name: Self.versionName(of: $0), path: (trimmed as NSString).appendingPathComponent($0)) }
            .sorted {
                let order = Self.naturalOrder($0.name, $1.name)
                return order != 0 ? order < 0 : $0.name < $1.name
            }
        guard let first = versions.first else {
            throw ModelError(.fileNotFound, "the folder holds no .xcdatamodel version", file: path)
        }
        let marker = (trimmed as NSString).appendingPathComponent(".xccurrentversion")
        guard FileManager.default.fileExists(atPath: marker) else {
            guard versions.count == 1 else {
                throw ModelError(
                    .invalidValue,
                    "there are \(versions.count) versions and no .xccurrentversion naming the current one", file: path)
            }
            currentVersion = first
            return
        }
        let currentName = try Self.currentVersionFileName(marker)
        guard let current = versions.first(where: { ($0.path as NSString).lastPathComponent == currentName }) else {
            throw ModelError(
                .invalidValue,
                "_XCCurrentVersionName is '\(currentName)', which is not a version here; expected one of "
                    + versions.map { "'\(($0.path as NSString).lastPathComponent)'" }.joined(separator: ", "),
                file: marker)
        }
        currentVersion = current
    }

    /// Whether `path` names an Xcode model (an `.xcdatamodeld` or `.xcdatamodel` folder) rather than a YAML file.
    public static func isXcodeModel(_ path: String) -> Bool {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        return ["xcdatamodeld", "xcdatamodel"].contains((trimmed as NSString).pathExtension)
    }

    private static func versionName(of path: String) -> String {
        ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    /// The `_XCCurrentVersionName` of a `.xccurrentversion` property list.
    private static func currentVersionFileName(_ marker: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: marker) else {
            throw ModelError(.unreadableFile, "cannot read the file", file: marker)
        }
        let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        guard let dictionary = plist as? [String: Any], let name = dictionary["_XCCurrentVersionName"] as? String
        else {
            throw ModelError(
                .invalidXML, "expected a property list with _XCCurrentVersionName, the current version's folder",
                file: marker)
        }
        return name
    }
}
