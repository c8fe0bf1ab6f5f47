public import FerryStore
import Foundation
import Logging

/// How a ``BulkSession`` opens its store: the settings of bulk work, which `ferry`'s options set.
public struct StoreSettings: Sendable {
    /// The page cache of bulk runs, in MiB, by default. Imports walk each chunk's keys in order, so a small cache
    /// holds the pages they work on; a larger one pays only when a whole uniqueness index fits in it.
    public static let defaultCacheMiB = 8

    /// The store's page cache, in MiB: an explicit size bounds the process's memory.
    public var cacheMiB = defaultCacheMiB
    /// How hard commits are pushed to disk.
    public var synchronous: PersistentStoreDescription.Synchronous = .normal
    /// Turn persistent history on (opt-in, as in Core Data); a store that records it always keeps recording.
    public var recordsHistory = false

    /// The default settings.
    public init() {}

    /// A loaded container for the store at `storePath`; `modelPath` names a model file (required for a new store
    /// unless `inferredModel` gives a model), otherwise the store's own model is used.
    ///
    /// - Throws: ``ModelError`` for a bad model file; ``StoreError`` (`.fileNotFound` when the store does not exist
    ///   and no model was given).
    func loadContainer(
        storePath: String, modelPath: String?, inferredModel: (() throws -> ManagedObjectModel)?, logger: Logger
    ) async throws -> PersistentContainer {
        var description = PersistentStoreDescription(path: storePath)
        description.cacheSizeKiB = max(cacheMiB, 1) * 1024
        // Checkpoints (the only syncs under synchronous=NORMAL) every 64 MiB of log rather than every 4 MiB, beside
        // the writer rather than inside its commits.
        description.walAutoCheckpointPages = 16_384
        description.checkpointsInBackground = true
        description.synchronous = synchronous
        description.recordsHistory = recordsHistory || PersistentStore.hasRecordedHistory(at: storePath)
        let name = URL(fileURLWithPath: storePath).deletingPathExtension().lastPathComponent
        let container: PersistentContainer
        if let modelPath {
            let file = try ModelFile(contentsOf: modelPath)
            container = PersistentContainer(
                name: name, model: file.model, storeDescription: description, logger: logger)
        } else if !FileManager.default.fileExists(atPath: storePath), let inferredModel {
            container = PersistentContainer(
                name: name, model: try inferredModel(), storeDescription: description, logger: logger)
        } else {
            container = try await PersistentContainer(name: name, storeDescription: description, logger: logger)
        }
        try await container.loadPersistentStores()
        return container
    }
}
