import FerryStore
import Synchronization

/// The chunk a ``ContextChunkWriter`` applies ahead: at most one, begun while the previous chunk saves.
final class ChunkLookahead: Sendable {
    private let pending = Mutex<Task<AppliedChunk?, any Error>?>(nil)

    /// Starts applying the next chunk; `work` returns nil when that chunk must wait for the current save.
    func begin(_ work: @escaping @Sendable () async throws -> AppliedChunk?) {
        pending.withLock { $0 = Task(operation: work) }
    }

    /// The chunk applied ahead when it is the one at `checkpoint`; nil when none was (apply it now).
    ///
    /// - Throws: what applying it threw, which belongs to that chunk.
    func take(for checkpoint: Checkpoint) async throws -> AppliedChunk? {
        let task = pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
        guard let applied = try await task?.value, applied.chunk.checkpoint == checkpoint else { return nil }
        return applied
    }
}
