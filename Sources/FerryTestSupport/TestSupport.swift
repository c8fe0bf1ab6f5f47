public import Foundation

/// Locations and scratch space shared by Ferry's test targets.
public enum TestSupport {
    /// The package's root folder (the one holding `Package.swift`).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// `../shared` beside the package: the conformance corpora and the benchmark data generator.
    public static let sharedFolder: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")

    /// A folder of the conformance corpora (`conformance` in that folder).
    public static func conformance(_ name: String) -> URL {
        sharedFolder.appendingPathComponent("conformance").appendingPathComponent(name)
    }

    /// A file in `SampleData/`.
    public static func sampleData(_ name: String) -> URL {
        packageRoot.appendingPathComponent("SampleData").appendingPathComponent(name)
    }

    /// A fresh, empty temporary folder for one test; the caller removes it (see ``withTemporaryFolder(_:)``).
    public static func makeTemporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `body` with a fresh temporary folder and removes the folder afterwards.
    public static func withTemporaryFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    /// Writes `bytes` to a new file in `folder` and returns its path.
    @discardableResult
    public static func write(_ bytes: [UInt8], to name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}
