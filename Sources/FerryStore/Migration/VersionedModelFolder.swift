import Foundation

/// A model with its history of versions: a folder (by convention `NAME.model/`) holding one model file per version,
/// `v1.yml`, `v2.yml`, … in order, and optionally a file `current` naming the version in use (`v3`); without it the
/// highest version is current. Beside a version, `vN.migration.yml` may declare the custom stage that migrates a
/// store into it (steps run on the old model before, and on the new one after; see the FerryPipeline docs).
///
/// ```
/// catalog.model/
///   v1.yml
///   v2.yml
///   v2.migration.yml     # willMigrate / didMigrate steps into v2
///   v3.yml
///   current              # "v3"
/// ```
///
/// An Xcode `.xcdatamodeld` is a versioned model too: its `.xcdatamodel` versions in name order, numbers compared
/// as numbers (`Catalog`, `Catalog 2`, … `Catalog 10`), the current one last (see
/// ``XcodeModelBundle/migrationChain()``), with `NAME.migration.yml` inside it as the stage into version `NAME`.
///
/// A store is migrated from the version whose version hash it has, one version at a time, up to the current one
/// (Core Data's staged migration): each hop is inferred, with its stage's steps around it when it has one.
public struct VersionedModelFolder: Sendable {
    /// One version of the model.
    public struct Version: Sendable {
        /// `v1`, `v2`, … (an Xcode version's name, `Catalog 2`, in an `.xcdatamodeld`)
        public var name: String
        /// Its position, from 1.
        public var number: Int
        /// The model file's path (the `.xcdatamodel` folder, in an `.xcdatamodeld`).
        public var path: String
        /// The model.
        public var model: ManagedObjectModel
        /// The path of `vN.migration.yml`, the stage that migrates into this version, when there is one.
        public var stagePath: String?
    }

    /// The folder's path.
    public var path: String
    /// The versions, oldest first, up to and including the current one.
    public var versions: [Version]

    /// The version in use.
    public var current: Version {
        guard let last = versions.last else { preconditionFailure("a versioned model folder has a version") }
        return last
    }

    /// Whether `path` is a versioned model folder: a folder holding `v1.yml`, or an `.xcdatamodeld` folder.
    public static func isVersionedModel(_ path: String) -> Bool {
        if isXcodeBundle(path) { return true }
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            && FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("v1.yml"))
    }

    /// Loads every version of the folder at `path`, up to the current one.
    ///
    /// - Throws: ``ModelError`` when the folder has no `v1.yml`, its versions are not numbered 1, 2, 3… without a
    ///   gap, `current` names no version, or a version's model file is invalid; for an `.xcdatamodeld`, as
    ///   ``XcodeModelBundle/migrationChain()``.
    public init(contentsOf path: String) throws {
        if Self.isXcodeBundle(path) {
            try self.init(xcodeModelAt: path)
        } else {
            try self.init(yamlVersionsAt: path)
        }
    }

    /// Loads the `vN.yml` versions of the folder at `path`, up to the current one.
    private init(yamlVersionsAt path: String) throws {
        self.path = path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        var numbers: [Int] = []
        for name in names where name.hasPrefix("v") && name.hasSuffix(".yml") && !name.hasSuffix(".migration.yml") {
            if let number = Int(name.dropFirst().dropLast(4)) { numbers.append(number) }
        }
        numbers.sort()
        guard numbers.first == 1 else {
            throw ModelError(.fileNotFound, "a versioned model folder needs v1.yml (then v2.yml, v3.yml…)", file: path)
        }
        guard numbers == Array(1...numbers.count) else {
            throw ModelError(
                .invalidValue,
                "the versions must be numbered v1, v2, v3… without a gap; found "
                    + numbers.map { "v\($0)" }.joined(separator: ", "), file: path)
        }
        var last = numbers.count
        let currentPath = (path as NSString).appendingPathComponent("current")
        if let data = FileManager.default.contents(atPath: currentPath) {
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("v"), let number = Int(text.dropFirst()), numbers.contains(number) else {
                throw ModelError(
                    .invalidValue, "'current' names '\(text)', which is not a version of the folder (v1…v\(last))",
                    file: currentPath)
            }
            last = number
        }
        versions = try (1...last).map { number in
            let file = (path as NSString).appendingPathComponent("v\(number).yml")
            let stage = (path as NSString).appendingPathComponent("v\(number).migration.yml")
            return Version(
                name: "v\(number)", number: number, path: file, model: try ModelFile(contentsOf: file).model,
                stagePath: FileManager.default.fileExists(atPath: stage) ? stage : nil)
        }
    }

    /// The version whose model has `hash`, or `nil`.
    public func version(withHash hash: String) -> Version? {
        versions.last { $0.model.versionHash == hash }
    }
}
