import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore
import Logging

/// A model's warnings are logged once per process, however often a store with that model opens, while every store
/// still lists them.
struct ModelWarningLogTests {
    /// A model whose one relationship has no inverse, with entity names no other test uses (the log is the process's).
    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "WarnedFlight", attributes: [AttributeDescription(name: "number", type: .integer64)],
            relationships: [RelationshipDescription(name: "carrier", destinationEntity: "WarnedCarrier")]),
        EntityDescription(name: "WarnedCarrier", attributes: [AttributeDescription(name: "code", type: .string)]),
    ])

    @Test func aStoreOpenedTwiceLogsItsModelsWarningsOnce() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = CapturedLog()
        var stores: [PersistentStore] = []
        for name in ["a", "a", "b"] {
            let container = PersistentContainer(
                name: name, model: Self.model,
                storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("\(name).sqlite").path),
                logger: log.logger)
            try await container.loadPersistentStores()
            stores.append(container.persistentStore)
        }

        let warnings = log.entries.filter { $0.level == .warning && $0.message.contains("WarnedFlight") }
        #expect(warnings.count == 1, "\(warnings.map(\.message))")
        #expect(warnings.first?.message.contains("relationship carrier: no inverse") == true)
        #expect(stores.allSatisfy { $0.modelWarnings.map(\.code) == [.missingInverse] })
    }
}
