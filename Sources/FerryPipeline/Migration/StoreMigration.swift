public import FerryStore
import Foundation
public import Logging

/// Migrates a store to a model file or through a versioned model folder, stage by stage: the one place where the
/// `ferry` command (`ferry migrate`, and the automatic migration of `ferry run` and `ferry import`) and Swift programs
/// migrate stores.
///
/// With a versioned model folder (``VersionedModelFolder``: `NAME.model/` with `v1.yml`, `v2.yml`…, or an Xcode
/// `.xcdatamodeld`) the store is migrated from the version it is at, one version at a time, up to the current one;
/// each hop is inferred (``StoreMigrator``), with the custom stage into that version around it when there is one: a
/// ``CustomMigrationStage`` given in Swift, or `vN.migration.yml` beside the version (`NAME.migration.yml` inside an
/// `.xcdatamodeld`, for version `NAME`):
///
/// ```yaml
/// willMigrate:          # on the old model, before the inferred migration
///   - batchDelete: { entity: Product, where: "sku == nil" }
/// didMigrate:           # on the new model, after it
///   - batchUpdate: { entity: Product, where: "origin == nil", set: { origin: unknown } }
/// ```
///
/// Custom stages run in their own transactions: a migration stopped after a `willMigrate` runs it again on the next
/// attempt, so its steps should be safe to repeat (as de-duplication and back-fills are).
public struct StoreMigration: Sendable {
    /// What a migration did or would do, as printed.
    public struct Outcome: Sendable {
        /// One hop's plan, with the version names.
        public var plans: [(from: String, to: String, plan: MigrationPlan)]
        /// What each hop did, when it ran.
        public var results: [MigrationResult]
        /// Whether the store was already at the model.
        public var isCurrent: Bool { plans.isEmpty }
        /// Whether data block a hop.
        public var isBlocked: Bool { plans.contains { $0.plan.isBlocked } }

        /// The human form: each hop's plan, then what ran.
        public var text: String {
            guard !plans.isEmpty else { return "the store is at the model already: nothing to migrate" }
            var lines: [String] = []
            for (index, hop) in plans.enumerated() {
                lines.append("\(hop.from) → \(hop.to): \(hop.plan.text)")
                if index < results.count {
                    let result = results[index]
                    lines.append(
                        "  migrated: model version \(result.version), rows before \(Self.counts(result.rowsBefore)), "
                            + "after \(Self.counts(result.rowsAfter)), \(result.rejected) rejected")
                }
            }
            return lines.joined(separator: "\n")
        }

        /// The JSON form: `{"hops": [{"from", "to", "plan", "migrated"}]}`.
        public var json: String {
            var hops: [String] = []
            for (index, hop) in plans.enumerated() {
                var text = "{\"from\":\(Self.quoted(hop.from)),\"to\":\(Self.quoted(hop.to)),\"plan\":\(hop.plan.json)"
                if index < results.count {
                    let result = results[index]
                    text += ",\"migrated\":{\"version\":\(result.version),\"rejected\":\(result.rejected)}"
                }
                hops.append(text + "}")
            }
            return "{\"hops\":[\(hops.joined(separator: ","))]}"
        }

        private static func counts(_ counts: [String: Int]) -> String {
            counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }

        private static func quoted(_ text: String) -> String {
            let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The store file.
    public var storePath: String
    /// A model file or a versioned model folder (or an `.xcdatamodeld`).
    public var modelPath: String
    /// What happens to rows that break a new rule.
    public var policy: ViolationPolicy
    /// What the history records as having migrated the store.
    public var appliedBy: String
    /// Custom stages given in Swift, by the version they migrate into.
    public var stages: [CustomMigrationStage]
    /// Rows per transaction when a table is copied.
    public var chunkRows = 100_000
    /// The formats a text attribute turned date may be written in, tried in order (``StoreMigrator/dateFormats``);
    /// `[.iso8601]` by default. An import's `dateFormats` are not these: a migration names its own.
    public var dateFormats: [DateFormat] = [.iso8601]
    /// Where the migration logs; at debug level each statement with its duration.
    public var logger: Logger

    /// Creates a migration of the store at `storePath` to the model at `modelPath`.
    public init(
        storePath: String, modelPath: String, policy: ViolationPolicy = .fail, appliedBy: String = "ferry",
        stages: [CustomMigrationStage] = [], logger: Logger = Logger(label: "ferry.migration")
    ) {
        self.storePath = storePath
        self.modelPath = modelPath
        self.policy = policy
        self.appliedBy = appliedBy
        self.stages = stages
        self.logger = logger
    }

    /// One hop: from a version to the next.
    struct Hop {
        var from: String
        var to: String
        var model: ManagedObjectModel
        var stagePath: String?
        var stage: CustomMigrationStage?
        var previous: ManagedObjectModel
    }

    /// The hops from the store's model to the target, in order; empty when the store is at the target.
    ///
    /// - Throws: ``MigrationError`` `.missingSourceModel` when a versioned folder has no version with the store's
    ///   model; ``ModelError`` for a bad model; ``StoreError`` when the store cannot be read.
    func hops() throws -> [Hop] {
        let stored = try StoreMigrator(storePath: storePath).storedModel()
        let hash = stored.versionHash
        // The current model first: a store at it needs no chain (whose order an Xcode model may leave in doubt).
        let model = try ModelFile(contentsOf: modelPath).model
        guard model.versionHash != hash else { return [] }
        if VersionedModelFolder.isVersionedModel(modelPath) {
            let folder = try VersionedModelFolder(contentsOf: modelPath)
            guard let start = folder.version(withHash: hash) else {
                let first = folder.versions.first?.name ?? "v1"
                throw MigrationError(
                    .missingSourceModel,
                    "no version of \(modelPath) (\(first)…\(folder.current.name)) is the model the store is at "
                        + "(\(hash.prefix(12))); add that model as a version, or migrate with a model file",
                    path: storePath)
            }
            var hops: [Hop] = []
            var previous = start
            for version in folder.versions where version.number > start.number {
                // Renaming identifiers kept across versions name the element of the version before.
                let model = version.model.chainingRenamingIdentifiers(from: previous.model)
                hops.append(
                    Hop(
                        from: previous.name, to: version.name, model: model, stagePath: version.stagePath,
                        stage: stage(into: version.name, hash: version.model.versionHash), previous: previous.model))
                previous = version
            }
            return hops
        }
        return [
            Hop(
                from: String(hash.prefix(12)), to: String(model.versionHash.prefix(12)), model: model, stagePath: nil,
                stage: stage(into: "", hash: model.versionHash), previous: stored)
        ]
    }

    private func stage(into name: String, hash: String) -> CustomMigrationStage? {
        stages.first { $0.destination == hash || (!name.isEmpty && $0.destination == name) }
    }
}
