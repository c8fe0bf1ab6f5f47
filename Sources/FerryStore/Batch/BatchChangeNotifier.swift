import Synchronization

/// Hands the changes of each batch request run on a store to its observers, once the request committed: the
/// containers over the store (which merge them into their contexts, see
/// ``PersistentContainer/automaticallyMergesBatchChanges``) and the streams of ``PersistentStore/batchChanges``.
final class BatchChangeNotifier: Sendable {
    /// Called with each batch request's changes; the request waits for it to return.
    typealias Observer = @Sendable (RemoteChanges) async -> Void

    private let observers = Mutex<[(id: Int, observer: Observer)]>([])
    private let nextID = Atomic<Int>(0)

    /// Adds `observer`, called after every later batch request that changed rows, in the order observers were
    /// added; returns what ``removeObserver(_:)`` takes.
    @discardableResult
    func addObserver(_ observer: @escaping Observer) -> Int {
        let id = nextID.add(1, ordering: .relaxed).newValue
        observers.withLock { $0.append((id, observer)) }
        return id
    }

    func removeObserver(_ id: Int) {
        observers.withLock { $0.removeAll { $0.id == id } }
    }

    /// A new stream of the changes posted from now on; it ends when the caller stops iterating.
    func stream() -> AsyncStream<RemoteChanges> {
        let (stream, continuation) = AsyncStream<RemoteChanges>.makeStream()
        let id = addObserver { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        return stream
    }

    /// Calls every observer with `changes`, one after the other, unless nothing changed.
    func post(_ changes: RemoteChanges) async {
        guard !changes.isEmpty else { return }
        for entry in observers.withLock({ $0 }) { await entry.observer(changes) }
    }
}

extension PersistentStore {
    /// The changes of each batch request run on this store from the moment the stream is made, posted once the
    /// request committed; requests that changed nothing post nothing. Give them to
    /// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` — or let a container do it
    /// (``PersistentContainer/automaticallyMergesBatchChanges``).
    ///
    /// ```swift
    /// for await changes in store.batchChanges where changes.transactionAuthor != "cleanup" {
    ///     ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [reportContext])
    /// }
    /// ```
    public var batchChanges: AsyncStream<RemoteChanges> { batchChangeNotifier.stream() }
}
