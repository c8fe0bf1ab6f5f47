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
    /// Migrate a store whose model differs from the model file given before opening it, when the migration may run
    /// by itself (see ``StoreMigration/migrateIfNeeded(automatic:)``); when false, such a store fails to open with a
    /// message naming `ferry migrate`.
    public var migratesAutomatically = true
    /// The formats a text attribute turned date is read in by that migration (``StoreMigration/dateFormats``).
    public var migrationDateFormats: [DateFormat] = [.iso8601]
    /// What the model history records as having migrated a store automatically.
    public var migrationAppliedBy = "ferry"
    /// The entity an ad hoc import writes: when an existing store's model lacks it (and no model file is given), the
    /// entity inferred from the records is added to the store's model by a migration.
    public var adHocEntity: String?
    /// Import steps whose new columns are added to the store's model before it opens: those whose contract is
    /// ``SchemaContract/evolve`` (see ``SchemaContract``). Only for a store opened with its own model: a model file
    /// says what each entity has.
    public var importsToEvolve: [ImportSpec] = []
    /// Whether opening looks for a migration at all: not when the store is opened to read it.
    var considersMigration = true
    /// Whether the store is opened read-only (`PersistentStoreDescription.isReadOnly`): by sessions that only read it.
    var opensReadOnly = false

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
        description.isReadOnly = opensReadOnly
        description.recordsHistory = recordsHistory || PersistentStore.hasRecordedHistory(at: storePath)
        let name = URL(fileURLWithPath: storePath).deletingPathExtension().lastPathComponent
        let container: PersistentContainer
        if let modelPath, considersMigration {
            if let refusal = evolveWithModelFile { throw refusal }
            var migration = StoreMigration(
                storePath: storePath, modelPath: modelPath, appliedBy: migrationAppliedBy, logger: logger)
            migration.dateFormats = migrationDateFormats
            try await migration.migrateIfNeeded(automatic: migratesAutomatically)
            let file = try ModelFile(contentsOf: modelPath)
            container = PersistentContainer(
                name: name, model: file.model, storeDescription: description, logger: logger)
        } else if !FileManager.default.fileExists(atPath: storePath), let inferredModel {
            container = PersistentContainer(
                name: name, model: try inferredModel(), storeDescription: description, logger: logger)
        } else {
            if considersMigration, let inferredModel, let adHocEntity,
                FileManager.default.fileExists(atPath: storePath)
            {
                try addEntity(adHocEntity, of: inferredModel, toStoreAt: storePath, logger: logger)
            }
            if considersMigration { try evolveModel(ofStoreAt: storePath, logger: logger) }
            container = try await PersistentContainer(name: name, storeDescription: description, logger: logger)
        }
        try await container.loadPersistentStores()
        return container
    }

    /// An ad hoc import into an existing store of an entity the store's model lacks: the entity, inferred from the
    /// records, is added to the store's model by a migration (a new table; no existing data is touched).
    private func addEntity(
        _ name: String, of inferredModel: () throws -> ManagedObjectModel, toStoreAt storePath: String, logger: Logger
    ) throws {
        let migrator = StoreMigrator(storePath: storePath, appliedBy: migrationAppliedBy, logger: logger)
        let stored: ManagedObjectModel
        do {
            stored = try migrator.storedModel()
        } catch is StoreError {
            return  // opening the store reports it
        }
        // A name close to an existing entity's is more likely a typo than a new entity: opening reports it.
        let names = stored.entities.map(\.name)
        guard stored.entity(named: name) == nil, NameSuggestion.suggestion(for: name, among: names) == nil else { return }
        var merged = stored
        for entity in try inferredModel().entities where stored.entity(named: entity.name) == nil {
            merged.entities.append(entity)
        }
        guard merged.entities.count > stored.entities.count else { return }
        let plan = try migrator.plan(to: merged)
        try migrator.migrate(to: plan)
        let added = merged.entities.dropFirst(stored.entities.count).map(\.name).joined(separator: ", ")
        logger.info("added \(added) to the store's model", metadata: ["store": "\(storePath)"])
    }
}
