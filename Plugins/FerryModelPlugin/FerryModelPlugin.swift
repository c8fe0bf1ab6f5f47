import Foundation
import PackagePlugin

/// Generates typed Swift classes at build time from the models in a target: every `*.xcdatamodeld` folder and every
/// `*.ferrymodel.yml` file under the target's folder.
///
/// ```swift
/// .executableTarget(
///     name: "App",
///     dependencies: [.product(name: "FerryStore", package: "Ferry")],
///     exclude: ["Catalog.xcdatamodeld"],
///     plugins: [.plugin(name: "FerryModelPlugin", package: "Ferry")])
/// ```
///
/// For each model, one Swift file is compiled into the target: the model type (`CatalogModel`), every machine class
/// (`_Product`), and `class Product: _Product {}` for each entity whose `Product.swift` the target does not have.
/// Write `Product.swift` in the target to add your own code; the default class then goes away. The file is made
/// again when the model or the target's Swift files change.
@main
struct FerryModelPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let folder = target.directoryURL
        let models = Self.models(under: folder)
        guard !models.isEmpty else { return [] }
        let tool = try context.tool(named: "FerryModelGenerator")
        let swiftFiles = target.sourceFiles(withSuffix: "swift").map(\.url)
        return models.map { model in
            let base = model.lastPathComponent.components(separatedBy: ".").first ?? "Model"
            let output = context.pluginWorkDirectoryURL.appendingPathComponent("\(base)+Ferry.swift")
            return .buildCommand(
                displayName: "Generating Ferry classes from \(model.lastPathComponent)",
                executable: tool.url,
                arguments: [model.path, "--output", output.path, "--human-classes-in", folder.path],
                inputFiles: Self.files(of: model) + swiftFiles,
                outputFiles: [output])
        }
    }

    /// The models under `folder`, by path: `.xcdatamodeld` folders and `.ferrymodel.yml` files.
    static func models(under folder: URL) -> [URL] {
        var found: [URL] = []
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return []
        }
        while let url = walker.nextObject() as? URL {
            let name = url.lastPathComponent
            if name.hasPrefix(".") {
                walker.skipDescendants()
            } else if name.hasSuffix(".xcdatamodeld") || name.hasSuffix(".xcdatamodel") && !isInsideBundle(url) {
                found.append(url)
                walker.skipDescendants()
            } else if name.hasSuffix(".ferrymodel.yml") {
                found.append(url)
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// Whether `url` is a version inside an `.xcdatamodeld`.
    private static func isInsideBundle(_ url: URL) -> Bool {
        url.deletingLastPathComponent().lastPathComponent.hasSuffix(".xcdatamodeld")
    }

    /// The files of a model: itself, or every file inside a model folder.
    static func files(of model: URL) -> [URL] {
        guard model.pathExtension.hasPrefix("xcdatamodel") else { return [model] }
        var files: [URL] = []
        let walker = FileManager.default.enumerator(at: model, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walker?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }
}
