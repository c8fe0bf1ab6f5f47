import FerryStore
import Foundation
import Logging
import Yams

/// Custom stages: the Swift handlers and the steps `vN.migration.yml` declares.
extension StoreMigration {
    /// Runs the hop's `willMigrate` (on its old model) or `didMigrate` (on its new model): the Swift handler, then
    /// the declared steps.
    ///
    /// - Throws: ``MigrationError`` `.stageFailed` naming the stage and what failed.
    func runStage(_ hop: Hop, willMigrate: Bool) async throws {
        let handler = willMigrate ? hop.stage?.willMigrate : hop.stage?.didMigrate
        let steps = try hop.stagePath.map { try Self.declaredSteps(at: $0, willMigrate: willMigrate) } ?? []
        guard handler != nil || !steps.isEmpty else { return }
        let phase = willMigrate ? "willMigrate" : "didMigrate"
        let container = PersistentContainer(
            name: "migration", model: willMigrate ? hop.previous : hop.model,
            storeDescription: PersistentStoreDescription(path: storePath), logger: logger)
        do {
            try await container.loadPersistentStores()
            try await handler?(container)
            for step in steps { try await Self.run(step, on: container, stage: "\(hop.to) \(phase)") }
            // Closed before the migration goes on with connections of its own to the same file.
            await container.persistentStore.close()
        } catch {
            throw MigrationError(
                .stageFailed, "the \(phase) stage into \(hop.to) failed: \(error)", path: storePath,
                underlying: error)
        }
    }

    /// One declared step.
    enum DeclaredStep {
        case update(BatchUpdateStep)
        case delete(BatchDeleteStep)
    }

    /// The steps under `willMigrate:` or `didMigrate:` in a stage file.
    ///
    /// - Throws: ``MigrationError`` `.stageFailed` when the file does not read as a stage.
    static func declaredSteps(at path: String, willMigrate: Bool) throws -> [DeclaredStep] {
        let key = willMigrate ? "willMigrate" : "didMigrate"
        func failure(_ message: String) -> MigrationError {
            MigrationError(.stageFailed, "\(path): \(message)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw failure("cannot read the file") }
        let root: Node?
        do {
            root = try Yams.compose(yaml: String(decoding: data, as: UTF8.self))
        } catch {
            throw failure("not valid YAML: \(error)")
        }
        guard let mapping = root?.mapping else { throw failure("expected willMigrate: and/or didMigrate: lists") }
        for (name, _) in mapping where !["willMigrate", "didMigrate"].contains(name.string ?? "") {
            throw failure("unknown key '\(name.string ?? "")'; expected willMigrate or didMigrate")
        }
        guard let list = mapping[key] else { return [] }
        guard let items = list.sequence else { throw failure("\(key) must be a list of steps") }
        return try items.map { item in
            guard let step = item.mapping, step.count == 1, let (kindNode, body) = step.first,
                let kind = kindNode.string, let fields = body.mapping
            else { throw failure("each step of \(key) is one of batchUpdate: { … } or batchDelete: { … }") }
            guard let entity = fields["entity"]?.string else { throw failure("a \(kind) step needs entity:") }
            let predicate = fields["where"]?.string
            switch kind {
            case "batchUpdate":
                guard let set = fields["set"]?.mapping, !set.isEmpty else {
                    throw failure("a batchUpdate step needs set: { attribute: value }")
                }
                let pairs = set.map { (attribute: $0.key.string ?? "", value: $0.value.string ?? "") }
                return .update(BatchUpdateStep(entity: entity, predicate: predicate, set: pairs))
            case "batchDelete":
                return .delete(BatchDeleteStep(entity: entity, predicate: predicate))
            default:
                throw failure("unknown step '\(kind)'; expected batchUpdate or batchDelete")
            }
        }
    }

    /// Runs a declared step as a pipeline runs its batch steps.
    private static func run(_ step: DeclaredStep, on container: PersistentContainer, stage: String) async throws {
        let store = container.persistentStore
        switch step {
        case .update(let update):
            var request = BatchUpdateRequest(
                entityName: update.entity, predicate: try update.predicate.map { try FetchPredicate(format: $0) },
                propertiesToUpdate: try PipelineRunner.expressions(update, model: container.model),
                resultType: .updatedObjectsCount)
            request.transactionAuthor = "ferry migrate \(stage)"
            _ = try await store.execute(request)
        case .delete(let delete):
            var fetch = FetchRequest(entityName: delete.entity)
            fetch.predicate = try delete.predicate.map { try FetchPredicate(format: $0) }
            var request = BatchDeleteRequest(fetchRequest: fetch, resultType: .count)
            request.transactionAuthor = "ferry migrate \(stage)"
            _ = try await store.execute(request)
        }
    }
}
