import FerryTestSupport
import Foundation
import Testing

/// Every command that opens a store closes it before it exits: no `-wal` or `-shm` file is left beside the store,
/// so the store file alone holds what the command committed.
struct StoreClosingCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test func importUpsertExportInspectPruneAndAFailedImportLeaveNoLogBesideTheStore() throws {
        try TestSupport.withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("items.sqlite").path
            let first = try TestSupport.write(
                Array("id,qty\n1,1\n2,2\nbad,3\n".utf8), to: "first.csv", in: folder)
            let second = try TestSupport.write(Array("id,qty\n2,20\n3,30\n".utf8), to: "second.csv", in: folder)
            let commands: [(String, [String], Int32)] = [
                ("new store", ["import", first, "--store", store, "--entity", "Item", "--key", "id", "--quiet"], 0),
                // An existing store opened without a model file: its model is read on a connection of its own.
                ("upsert", ["import", second, "--store", store, "--entity", "Item", "--key", "id", "--quiet"], 0),
                ("export", ["export", "--store", store, "--entity", "Item", "--output", "-", "--quiet"], 0),
                ("inspect", ["inspect", "--store", store], 0),
                ("prune", ["prune", "--store", store, "--runs-keep", "1", "--quiet"], 0),
                // An entity the model lacks: refused after the store was opened.
                ("failed import", ["import", second, "--store", store, "--entity", "Itme", "--quiet"], 64),
            ]
            for (name, arguments, status) in commands {
                let result = try ferry.run(arguments)
                #expect(result.status == status, "\(name): \(result.standardError)")
                #expect(!FileManager.default.fileExists(atPath: store + "-wal"), "\(name) left the log")
                #expect(!FileManager.default.fileExists(atPath: store + "-shm"), "\(name) left the shared memory")
            }
        }
    }
}
