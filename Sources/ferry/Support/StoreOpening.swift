import FerryStore
import Foundation
import Logging

/// Opening the store a command names: with a model file, or with the model the store keeps.
enum StoreOpening {
    /// The page cache of bulk runs, in MiB. Imports walk each chunk's keys in order (see `ChunkProducer`), so a
    /// small cache holds the pages they work on; a larger one pays only when a whole uniqueness index fits in it.
    static let defaultCacheMiB = 8

    /// A loaded container for the store at `path`; `modelPath` names a model file (required for a new store
    /// unless `inferred` gives a model). `recordsHistory` turns persistent history on (a store that already
    /// records it always does); `synchronous` is how hard commits are pushed to disk (`ferry import --sync`).
    ///
    /// - Throws: ``ModelError`` for a bad model file; ``StoreError`` (`.fileNotFound` when the store does not exist
    ///   and no model was given).
    static func container(
        storePath: String, modelPath: String?, recordsHistory: Bool = false, cacheMiB: Int = defaultCacheMiB,
        synchronous: PersistentStoreDescription.Synchronous = .normal,
        inferred: (() throws -> ManagedObjectModel)? = nil, logger: Logger
    ) async throws -> PersistentContainer {
        var description = PersistentStoreDescription(path: storePath)
        // An explicit size bounds the process's memory (see `defaultCacheMiB`).
        description.cacheSizeKiB = cacheMiB * 1024
        // Checkpoints (the only syncs under synchronous=NORMAL) every 64 MiB of log rather than every 4 MiB, beside
        // the writer rather than inside its commits.
        description.walAutoCheckpointPages = 16_384
        description.checkpointsInBackground = true
        description.synchronous = synchronous
        // Opt-in, as in Core Data; but a store that records history keeps recording, whoever writes to it.
        description.recordsHistory = recordsHistory || PersistentStore.hasRecordedHistory(at: storePath)
        let name = URL(fileURLWithPath: storePath).deletingPathExtension().lastPathComponent
        let container: PersistentContainer
        if let modelPath {
            let file = try ModelFile(contentsOf: modelPath)
            container = PersistentContainer(
                name: name, model: file.model, storeDescription: description, logger: logger)
        } else if !FileManager.default.fileExists(atPath: storePath), let inferred {
            container = PersistentContainer(
                name: name, model: try inferred(), storeDescription: description, logger: logger)
        } else {
            container = try await PersistentContainer(name: name, storeDescription: description, logger: logger)
        }
        try await container.loadPersistentStores()
        return container
    }
}
