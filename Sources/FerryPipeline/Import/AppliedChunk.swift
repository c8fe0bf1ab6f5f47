import FerryStore

/// A chunk applied to a context of its own and not yet saved.
final class AppliedChunk: @unchecked Sendable {
    // @unchecked: `application` and the objects behind it are used only inside `context.perform` — `apply()` once,
    // then `save(companion:)` once — so never from two threads at a time.
    let context: ManagedObjectContext
    /// The key texts of the chunk's rows, when the writer applies chunks ahead and looks records up by key.
    let keys: Set<String>
    private var application: ChunkApplication

    var chunk: Chunk { application.chunk }

    init(_ application: ChunkApplication, keys: Set<String>) {
        self.application = application
        self.context = application.context
        self.keys = keys
    }

    /// The first pass (on the context's queue).
    func apply() throws {
        try application.run()
    }

    /// Saves with the checkpoint, on the context's queue, then resets the context. Rows found refused are taken out
    /// and the chunk applied again from a clean context until a pass saves.
    func save(companion: (_ outcome: ChunkOutcome) -> TransactionCompanion) throws -> ChunkOutcome {
        defer { context.reset() }
        // Rows refused so far, with why: each pass skips them, so the refused records leave no trace.
        var refused: [Int: String] = [:]
        while true {
            var found = application.faults
            if found.isEmpty {
                do {
                    return try application.save(companion: companion)
                } catch let error as ValidationError {
                    found = try application.culprits(of: error)
                }
            }
            // Every pass refuses at least one more row, so the loop ends.
            refused.merge(found) { first, _ in first }
            context.reset()
            application = application.again(refusing: refused)
            try application.run()
        }
    }
}
