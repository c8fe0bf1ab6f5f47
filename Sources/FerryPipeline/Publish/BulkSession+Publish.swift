import FerryStore
import Foundation

extension BulkSession {
    /// Publishes what `spec` says into PostgreSQL (see ``Publisher``), recorded in the store's run ledger as a run
    /// of kind `publish` with its counts (sent as `read`, inserted, updated, unchanged, deleted, rejected).
    ///
    /// - Throws: as ``Publisher/publish(_:progress:)``; `StoreError` when the ledger cannot be written.
    @discardableResult
    public func publish(_ spec: PublishSpec, progress: (@Sendable (_ rows: Int) -> Void)? = nil) async throws
        -> Publisher.Result
    {
        let store = container.persistentStore
        let ledger = try await RunLedger(store: store)
        let started = ContinuousClock.now
        let run = try await ledger.start(pipeline: "publish \(spec.entity) to \(spec.table)", kind: "publish")
        do {
            let result = try await Publisher(store: store, logger: logger).publish(spec, progress: progress)
            try await ledger.finish(
                run: run, status: .succeeded, counts: result.counts, seconds: (ContinuousClock.now - started).seconds)
            try await store.checkpoint()
            return result
        } catch {
            try? await ledger.finish(
                run: run, status: .failed, counts: StepCounts(), seconds: (ContinuousClock.now - started).seconds)
            throw error
        }
    }
}
