extension PersistentContainer {
    /// Merges a batch request's changes into the live contexts that merge batch changes automatically
    /// (``ManagedObjectContext/automaticallyMergesBatchChanges``), each on its own queue, one after the other,
    /// parents before children; returns when all have, so the request returns after them. Subscribed to the store's
    /// batch changes when the store loads.
    func batchDidChange(_ changes: RemoteChanges) async {
        let receivers = ManagedObjectContext.inMergeOrder(liveContexts().filter(\.automaticallyMergesBatchChanges))
        for context in receivers {
            // `perform` does not block a thread of the cooperative pool while the context's queue is busy.
            try? await context.perform { context.mergeRemoteChanges(changes) }
        }
    }
}
