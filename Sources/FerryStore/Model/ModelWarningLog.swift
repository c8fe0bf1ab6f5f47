import Synchronization

/// The model warnings this process has logged, so that each is logged once however often a store with its model
/// opens: a command that opens its store more than once (a pipeline's validation and its run, a dry run's copy) or a
/// program that opens many stores of one model does not repeat them. ``PersistentStore/modelWarnings`` still lists
/// every warning of each store.
enum ModelWarningLog {
    private static let logged = Mutex<Set<ModelWarning>>([])

    /// The warnings of `warnings` not logged before in this process, now counted as logged.
    static func takeUnlogged(_ warnings: [ModelWarning]) -> [ModelWarning] {
        logged.withLock { logged in warnings.filter { logged.insert($0).inserted } }
    }
}
