import Foundation

/// Writes a ``SwiftModelGenerator``'s files to disk as mogenerator does: machine files and the model type every
/// time (left untouched when their text is already the same, so builds see no change), a human file only when no
/// file of its name exists under the human folder.
public struct SwiftCodeWriter: Sendable {
    /// What one run wrote.
    public struct Report: Sendable, Hashable {
        /// The files written (created or changed), by path.
        public var written: [String] = []
        /// The generated files already up to date, by path.
        public var unchanged: [String] = []
        /// The human files that exist and were left alone, by path.
        public var kept: [String] = []
    }

    /// Where machine files and the model type go.
    public let outputFolder: String
    /// Where human files go (and are looked for, in sub-folders too).
    public let humanFolder: String

    /// A writer into `outputFolder`, with human files in `humanFolder` (by default the same folder).
    public init(outputFolder: String, humanFolder: String? = nil) {
        self.outputFolder = outputFolder
        self.humanFolder = humanFolder ?? outputFolder
    }

    /// Writes every file of `generator`.
    ///
    /// - Throws: ``CodeGenerationError`` when a folder cannot be made or a file written.
    public func write(_ generator: SwiftModelGenerator) throws -> Report {
        var report = Report()
        let existingHuman = try Self.swiftFileNames(under: humanFolder)
        try makeFolder(outputFolder)
        try makeFolder(humanFolder)
        for file in generator.files() {
            switch file.kind {
            case .machine, .model:
                let path = (outputFolder as NSString).appendingPathComponent(file.name)
                if try writeIfChanged(file.contents, to: path) {
                    report.written.append(path)
                } else {
                    report.unchanged.append(path)
                }
            case .human:
                let path = (humanFolder as NSString).appendingPathComponent(file.name)
                if let existing = existingHuman[file.name] {
                    report.kept.append(existing)
                    continue
                }
                _ = try writeIfChanged(file.contents, to: path)
                report.written.append(path)
            }
        }
        return report
    }

    /// Writes the single file of `generator` (see ``SwiftModelGenerator/singleFile(defaultHumanClasses:)``) to
    /// `path`, with a human class for each entity that has no `<Entity>.swift` under the human folder.
    ///
    /// - Throws: ``CodeGenerationError`` when the file cannot be written.
    @discardableResult
    public func writeSingleFile(_ generator: SwiftModelGenerator, to path: String) throws -> Bool {
        let existing = try Self.swiftFileNames(under: humanFolder)
        let missing = Set(generator.entityNames.filter { existing["\($0).swift"] == nil })
        try makeFolder((path as NSString).deletingLastPathComponent)
        return try writeIfChanged(generator.singleFile(defaultHumanClasses: missing), to: path)
    }

    /// The `.swift` files under `folder` (sub-folders included, build folders and hidden ones not), by name: the
    /// first path found for each name. An absent folder has none.
    static func swiftFileNames(under folder: String) throws -> [String: String] {
        var names: [String: String] = [:]
        let manager = FileManager.default
        guard manager.fileExists(atPath: folder) else { return [:] }
        guard let walker = manager.enumerator(atPath: folder) else { return [:] }
        var paths: [String] = []
        while let relative = walker.nextObject() as? String {
            let components = relative.split(separator: "/")
            if components.contains(where: { $0.hasPrefix(".") }) {
                continue
            }
            if relative.hasSuffix(".swift") { paths.append(relative) }
        }
        for relative in paths.sorted() {
            let name = (relative as NSString).lastPathComponent
            if names[name] == nil { names[name] = (folder as NSString).appendingPathComponent(relative) }
        }
        return names
    }

    private func makeFolder(_ folder: String) throws {
        guard !folder.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CodeGenerationError("cannot make the folder: \(error.localizedDescription)", path: folder)
        }
    }

    /// Writes `contents` to `path` unless the file already holds exactly that; whether it wrote.
    private func writeIfChanged(_ contents: String, to path: String) throws -> Bool {
        let data = Data(contents.utf8)
        if let current = FileManager.default.contents(atPath: path), current == data { return false }
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CodeGenerationError("cannot write the file: \(error.localizedDescription)", path: path)
        }
        return true
    }
}
