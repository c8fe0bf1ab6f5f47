import FerryPipeline
import FerryTestSupport
import Foundation
import Testing

/// One run at a time per store file, however its path is spelled and whatever becomes of its lock file.
@Suite(.serialized)
struct StoreLockTests {
    let ferry = BuiltCommand(product: "ferry")

    /// A folder holding items.csv and items.model.yml, and a store made by importing it.
    static func workspaceWithStore() throws -> (folder: URL, store: String) {
        let folder = try CrashSafetyTests.workspace()
        let store = folder.appendingPathComponent("store.sqlite").path
        let result = try BuiltCommand(product: "ferry").run(
            CrashSafetyTests.importArguments(store: store, mode: "batch"), in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        return (folder, store)
    }

    @Test func runsThroughASymbolicLinkToALockedStoreOrToItsFolderExit75() throws {
        let (folder, store) = try Self.workspaceWithStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "store.sqlite")
        let alias = folder.appendingPathComponent("alias").path
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: folder.path)
        var lock: StoreLock? = try StoreLock(storePath: store)

        for path in [link, alias + "/store.sqlite"] {
            let result = try ferry.run(CrashSafetyTests.importArguments(store: path, mode: "batch"), in: folder)
            #expect(result.status == 75, "\(path): \(result.standardError)")
            #expect(result.standardError.contains("the store is in use by pid \(getpid())"), "\(result.standardError)")
        }
        withExtendedLifetime(lock) {}
        lock = nil

        // Released, the store takes the next run through either spelling.
        let after = try ferry.run(CrashSafetyTests.importArguments(store: link, mode: "batch"), in: folder)
        #expect(after.status == 0, "\(after.standardError)")
    }

    @Test func deletingTheLockFileOfAStoreARunHoldsDoesNotLetASecondRunIn() throws {
        let (folder, store) = try Self.workspaceWithStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lock: StoreLock? = try StoreLock(storePath: store)
        try FileManager.default.removeItem(atPath: StoreLock.path(forStore: store))

        let result = try ferry.run(CrashSafetyTests.importArguments(store: store, mode: "batch"), in: folder)

        #expect(result.status == 75, "\(result.standardError)")
        #expect(result.standardError.contains("holds the store file"), "\(result.standardError)")
        withExtendedLifetime(lock) {}
        lock = nil
        let after = try ferry.run(CrashSafetyTests.importArguments(store: store, mode: "batch"), in: folder)
        #expect(after.status == 0, "\(after.standardError)")
    }
}
