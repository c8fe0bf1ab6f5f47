import FerryPipeline
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import Testing

@testable import ferry
import ArgumentParser

/// `ferry import --sync` and `ferry run --sync`: how hard commits are pushed to disk.
struct SyncOptionTests {
    private static func importCommand(_ extra: [String]) throws -> ImportCommand {
        try #require(
            try Ferry.parseAsRoot(["import", "a.csv", "--store", "s.sqlite", "--entity", "Product"] + extra)
                as? ImportCommand)
    }

    @Test func syncDefaultsToNormalAndTakesSQLitesLevels() throws {
        #expect(try Self.importCommand([]).durability.synchronous == .normal)
        #expect(try Self.importCommand(["--sync", "off"]).durability.synchronous == .off)
        #expect(try Self.importCommand(["--sync", "full"]).durability.synchronous == .full)
        #expect(throws: (any Error).self) { try Self.importCommand(["--sync", "sometimes"]) }
        let run = try #require(try Ferry.parseAsRoot(["run", "p.yml", "--sync", "off"]) as? RunCommand)
        #expect(run.durability.synchronous == .off)
    }

    /// The store's writer runs at the level asked for (its background checkpointer is given the writer's level).
    @Test(
        arguments: [
            (PersistentStoreDescription.Synchronous.off, Int64(0)), (.normal, 1), (.full, 2),
        ] as [(PersistentStoreDescription.Synchronous, Int64)])
    func theStoreOpensAtTheLevelAskedFor(level: PersistentStoreDescription.Synchronous, pragma: Int64) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Product", attributes: [AttributeDescription(name: "sku", type: .string)])
        ])
        var settings = StoreSettings()
        settings.synchronous = level
        let session = try await BulkSession.open(
            storePath: folder.appendingPathComponent("s.sqlite").path, settings: settings, inferredModel: { model },
            logger: Logger(label: "test"))
        let value = try await session.container.persistentStore.writer.run { connection in
            try connection.prepare("PRAGMA synchronous").fetchAll().first?[0]
        }
        #expect(value == .integer(pragma))
    }
}
