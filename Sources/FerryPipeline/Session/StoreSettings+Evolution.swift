import FerryStore
import Foundation
import Logging

extension StoreSettings {
    /// Adds the new columns of every `schema: evolve` step of ``importsToEvolve`` to the model of the store at
    /// `storePath`, as optional attributes typed from a sample of their values (see ``SchemaDrift``), by one inferred
    /// migration that the store's model history records as one version: before the store is opened, so before any
    /// record is written. Nothing happens when nothing is new, or when there is no store yet (its model is inferred
    /// from the records, or given).
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` when a step does not fit the model; ``MigrationError`` and
    ///   ``ModelError`` when the migration cannot run (an input column whose name cannot be an attribute's);
    ///   ``FerryIOError`` when an input cannot be read.
    func evolveModel(ofStoreAt storePath: String, logger: Logger) throws {
        let specs = importsToEvolve.filter { $0.schema == .evolve }
        guard !specs.isEmpty, FileManager.default.fileExists(atPath: storePath) else { return }
        let migrator = StoreMigrator(
            storePath: storePath, appliedBy: migrationAppliedBy + " (schema: evolve)", logger: logger)
        let stored: ManagedObjectModel
        do {
            stored = try migrator.storedModel()
        } catch is StoreError {
            return  // opening the store reports it
        }
        var model = stored
        var added: [String] = []
        for spec in specs where model.entity(named: spec.entity) != nil {
            let drift = try SchemaDrift(spec: spec, model: model, typesNewColumns: true)
            guard let evolved = drift.evolvedModel(of: model) else { continue }
            model = evolved
            added += drift.newColumns.map { "\(spec.entity).\($0.attribute) (\($0.inference.inferredType))" }
        }
        guard !added.isEmpty else { return }
        try migrator.migrate(to: migrator.plan(to: model))
        logger.notice(
            "schema: evolve added \(added.joined(separator: ", ")) to the store's model",
            metadata: ["store": "\(storePath)"])
    }

    /// The failure of a `schema: evolve` step on a store opened with a model file, which fixes the model.
    var evolveWithModelFile: PipelineError? {
        guard let spec = importsToEvolve.first(where: { $0.schema == .evolve }) else { return nil }
        return PipelineError(
            .invalidSpec,
            "schema: evolve (import into \(spec.entity)) adds attributes to the store's own model, but a model file "
                + "is given, and it says what \(spec.entity) has: add the new columns to the model file (the store "
                + "is migrated to it), or import without the model file")
    }
}
