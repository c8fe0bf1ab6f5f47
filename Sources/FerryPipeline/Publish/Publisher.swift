import FerryPostgres
public import FerryStore
import Foundation
public import Logging

/// Publishes an entity's objects from one consistent snapshot of a store into a PostgreSQL table: the first time
/// in full, then only what changed since (persistent history), each chunk committed exactly once with its
/// checkpoint on the PostgreSQL side, so a killed publish resumes after its last committed chunk.
///
/// The table is created from the model when missing (see ``PublishSpec``'s modes for how rows arrive); an existing
/// one must fit the model, or the publish is refused naming every difference. Two publishes of one table exclude
/// each other with an advisory lock: the second fails with ``PipelineError`` `.storeLocked` (exit 75). A row
/// PostgreSQL refuses rolls its chunk back; the chunk is sent again row by row, the refused rows go to the rejects
/// with PostgreSQL's reason, and the publish goes on until more than ``PublishSpec/maxRejects`` are refused.
///
/// ```swift
/// let result = try await Publisher(store: container.persistentStore).publish(
///     PublishSpec(entity: "Product", to: "postgresql://ferry@localhost/catalog"))
/// print("\(result.counts.read) sent, \(result.counts.inserted) inserted, \(result.counts.updated) updated")
/// ```
public struct Publisher: Sendable {
    /// The store read.
    public let store: PersistentStore
    let logger: Logger

    /// A publisher reading `store`.
    public init(store: PersistentStore, logger: Logger = Logger(label: "ferry.publish")) {
        self.store = store
        self.logger = logger
    }

    /// What a publish did.
    public struct Result: Sendable, Hashable {
        /// The table written.
        public var table: String
        /// Rows sent (`read`), inserted, updated, unchanged (an upsert that found the same values), rejected, and
        /// rows deleted, over the whole publish (the chunks of a killed run included when this one resumed it).
        public var counts: StepCounts
        /// Whether this run resumed a publish that was killed or failed.
        public var resumed: Bool
        /// Whether only the changes since the previous publish were sent.
        public var incremental: Bool
        /// The store's history token the table now reflects.
        public var historyToken: Int64?
        /// The records PostgreSQL refused in this run.
        public var rejects: [PublishReject]
    }

    /// Publishes what `spec` says; `progress` is called with the rows sent so far after each chunk (for a resumed
    /// publish, counting those its stopped run committed).
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` (unknown entity or field, an upsert without a key, a table that
    ///   does not fit), `.storeLocked` (another publish of the table), `.tooManyRejects`; `PostgresError` when the
    ///   server cannot be reached or goes away (the password masked); `FetchPredicateError`, `StoreError`.
    @discardableResult
    public func publish(_ spec: PublishSpec, progress: (@Sendable (_ rows: Int) -> Void)? = nil) async throws
        -> Result
    {
        guard spec.chunkSize > 0 else {
            throw PipelineError(.invalidSpec, "chunkSize must be positive, not \(spec.chunkSize)")
        }
        let table = try PublishTable(spec, model: store.schema.model)
        let started = Date()
        let logger = self.logger
        let result = try await store.withReadSnapshot { snapshot in
            let connection = try PostgresConnection(url: ConnectionURL(spec.url))
            var run = PublishRun(
                spec: spec, table: table, connection: connection, snapshot: snapshot, logger: logger, progress: progress)
            return try run.run()
        }
        if let path = spec.rejectsPath, !result.rejects.isEmpty {
            try PublishReject.write(result.rejects, to: path)
        }
        logger.info(
            "published \(result.counts.read) rows of \(spec.entity) to \(table.name)",
            metadata: [
                "inserted": "\(result.counts.inserted)", "updated": "\(result.counts.updated)",
                "unchanged": "\(result.counts.unchanged)", "deleted": "\(result.counts.deleted)",
                "rejected": "\(result.counts.rejected)", "seconds": "\(Date().timeIntervalSince(started))",
            ])
        return result
    }
}
