import Foundation

/// An Xcode `.xcdatamodeld` as a versioned model: its `.xcdatamodel` versions are the versions, in the order of
/// ``XcodeModelBundle/migrationChain()``, and `NAME.migration.yml` beside version `NAME` inside the bundle is the
/// custom stage into it, as `vN.migration.yml` in a folder of YAML versions:
///
/// ```
/// Catalog.xcdatamodeld/
///   .xccurrentversion              # Catalog 3.xcdatamodel
///   Catalog.xcdatamodel/contents
///   Catalog 2.xcdatamodel/contents
///   Catalog 3.xcdatamodel/contents
///   Catalog 3.migration.yml        # willMigrate / didMigrate steps into Catalog 3 (Ferry's; Xcode does not use it)
/// ```
extension VersionedModelFolder {
    /// Whether `path` names an `.xcdatamodeld` folder (a lone `.xcdatamodel` is one model, not a chain).
    static func isXcodeBundle(_ path: String) -> Bool {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        var isFolder: ObjCBool = false
        return (trimmed as NSString).pathExtension == "xcdatamodeld"
            && FileManager.default.fileExists(atPath: trimmed, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// Loads every version of the `.xcdatamodeld` at `path`, up to the current one, which must be the last.
    ///
    /// - Throws: ``ModelError`` as ``XcodeModelBundle/init(at:)`` and ``XcodeModelBundle/migrationChain()``, or
    ///   for a version whose model is invalid.
    init(xcodeModelAt path: String) throws {
        let bundle = try XcodeModelBundle(at: path)
        let folder = (bundle.currentVersion.path as NSString).deletingLastPathComponent
        self.path = path
        versions = try bundle.migrationChain().enumerated().map { index, version in
            let stage = (folder as NSString).appendingPathComponent(version.name + ".migration.yml")
            return Version(
                name: version.name, number: index + 1, path: version.path, model: try version.load().model,
                stagePath: FileManager.default.fileExists(atPath: stage) ? stage : nil)
        }
    }
}
