import FerryStore
import Foundation
import Logging

extension StoreMigration {
    /// Plans the migration without changing the store. One hop without a custom stage is planned on the store
    /// itself; a chain (or a stage) is walked on a copy of the store made with `VACUUM INTO` in a temporary folder,
    /// so each hop is checked against the data the previous ones leave.
    ///
    /// - Throws: as ``run(allowsDestructiveChanges:)``, but never for data that block a hop or a destructive step
    ///   (the outcome shows them).
    public func plans() async throws -> Outcome {
        let hops = try hops()
        if hops.isEmpty { return Outcome(plans: [], results: []) }
        if hops.count == 1 && hops[0].stage == nil && hops[0].stagePath == nil {
            var migrator = StoreMigrator(storePath: storePath)
            migrator.dateFormats = dateFormats
            let plan = try migrator.plan(to: hops[0].model, policy: policy)
            return Outcome(plans: [(hops[0].from, hops[0].to, plan)], results: [])
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("store.sqlite").path
        try StoreMigrator(storePath: storePath).copyStore(to: copy)
        var onCopy = self
        onCopy.storePath = copy
        var outcome = Outcome(plans: [], results: [])
        try await onCopy.walk(hops, allowsDestructiveChanges: true, automatic: false, outcome: &outcome, planOnly: true)
        // What ran, ran on the copy: the store itself is unchanged.
        outcome.results = []
        return outcome
    }

    /// Migrates the store through every hop to the target model.
    ///
    /// - Throws: ``MigrationError`` (`.dataViolation` when data block a hop, `.destructive` when a hop removes data
    ///   and that is not allowed, `.notInferable`, `.missingSourceModel`, `.stageFailed`); ``StoreError``.
    public func run(allowsDestructiveChanges: Bool) async throws -> Outcome {
        var outcome = Outcome(plans: [], results: [])
        let hops = try hops()
        guard !hops.isEmpty else {
            // At the target already: a migration killed after its commit may have left blob files to remove.
            let removed = try StoreMigrator(storePath: storePath, logger: logger).sweepBlobFolder()
            if !removed.isEmpty { logger.info("removed blob files a stopped migration left", metadata: ["files": "\(removed.count)"]) }
            return outcome
        }
        try await walk(
            hops, allowsDestructiveChanges: allowsDestructiveChanges, automatic: false, outcome: &outcome,
            planOnly: false)
        return outcome
    }

    /// What `ferry run` and `ferry import` do before they open a store with a model: nothing when the store is at
    /// the model (or does not exist yet); otherwise the migration, when `automatic` and every hop is inferable,
    /// removes no data and is not blocked by data, as Core Data's containers migrate by default.
    ///
    /// - Throws: ``MigrationError`` `.needsManualMigration` showing the plan and the `ferry migrate` command to run
    ///   when the migration is not automatic; as ``run(allowsDestructiveChanges:)``.
    public func migrateIfNeeded(automatic: Bool) async throws {
        guard FileManager.default.fileExists(atPath: storePath) else { return }
        let hops: [Hop]
        do {
            hops = try self.hops()
        } catch let error as StoreError where error.code == .noStoredModel || error.code == .notAFerryStore {
            return  // opening the store reports it
        }
        guard !hops.isEmpty else { return }
        guard automatic else {
            let plan = try await plans()
            throw manual("the pipeline says `migration: manual`", plan)
        }
        var outcome = Outcome(plans: [], results: [])
        do {
            try await walk(hops, allowsDestructiveChanges: false, automatic: true, outcome: &outcome, planOnly: false)
        } catch let error as MigrationError where error.code != .stageFailed {
            throw manual(error.message, outcome)
        }
        logger.info("migrated the store to its new model", metadata: ["store": "\(storePath)", "hops": "\(hops.count)"])
    }

    /// The error that sends the user to `ferry migrate`.
    private func manual(_ why: String, _ outcome: Outcome) -> MigrationError {
        MigrationError(
            .needsManualMigration,
            "the store's model differs from \(modelPath) and the migration does not run by itself (\(why)):\n"
                + outcome.text + "\nrun `ferry migrate --store \(storePath) --model \(modelPath) --plan` to see it, then "
                + "`ferry migrate --store \(storePath) --model \(modelPath)` (with --allow-destructive or "
                + "--on-violation when the plan needs them)",
            path: storePath)
    }

    /// Runs (or, with `planOnly`, runs on a copy and records) each hop with its stage.
    private func walk(
        _ hops: [Hop], allowsDestructiveChanges: Bool, automatic: Bool, outcome: inout Outcome, planOnly: Bool
    ) async throws {
        var migrator = StoreMigrator(
            storePath: storePath, appliedBy: appliedBy, chunkRows: chunkRows, logger: logger)
        migrator.dateFormats = dateFormats
        for hop in hops {
            try await runStage(hop, willMigrate: true)
            let plan = try migrator.plan(to: hop.model, policy: policy)
            outcome.plans.append((hop.from, hop.to, plan))
            if planOnly && (plan.isBlocked || plan.isDestructive && !allowsDestructiveChanges) { return }
            if automatic && !plan.isAutomatic {
                throw MigrationError(
                    plan.isBlocked ? .dataViolation : .destructive,
                    plan.isBlocked ? "data block it" : "it removes data", path: storePath, plan: plan)
            }
            outcome.results.append(try migrator.migrate(to: plan, allowsDestructiveChanges: allowsDestructiveChanges))
            try await runStage(hop, willMigrate: false)
        }
    }
}
