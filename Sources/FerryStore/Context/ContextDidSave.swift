import Synchronization

/// What one save changed, by object ID: Core Data's `NSManagedObjectContextDidSaveObjectIDs` notification. Safe to
/// pass between contexts; give it to ``ManagedObjectContext/mergeChanges(fromContextDidSave:)``.
public struct ContextDidSave: Sendable, Hashable {
    /// Objects inserted (their permanent IDs, for a root save).
    public var insertedObjectIDs: [ObjectID]
    /// Objects updated.
    public var updatedObjectIDs: [ObjectID]
    /// Objects deleted.
    public var deletedObjectIDs: [ObjectID]
    /// The saving context's name.
    public var contextName: String?
    /// The saving context's transaction author.
    public var transactionAuthor: String?
    /// The persistent-history transaction the save recorded: `nil` for a child context's save and for a store
    /// without ``PersistentStoreDescription/recordsHistory``. Fetch what came after it with
    /// `fetchHistory(after:author:limit:)`.
    public var historyToken: Int64? = nil
}

/// Hands each did-save notification to every current listener.
final class SaveNotifier: Sendable {
    private let listeners = Mutex<[Int: AsyncStream<ContextDidSave>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    /// A new stream of the notifications posted from now on; it ends when the caller stops iterating.
    func stream() -> AsyncStream<ContextDidSave> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<ContextDidSave>.makeStream()
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.removeValue(forKey: id) }
        }
        listeners.withLock { $0[id] = continuation }
        return stream
    }

    func post(_ notification: ContextDidSave) {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(notification) }
    }
}

extension ManagedObjectContext {
    /// The notifications of this context's saves, from the moment the stream is made:
    ///
    /// ```swift
    /// for await saved in importer.didSaveNotifications {
    ///     try await viewContext.perform { viewContext.mergeChanges(fromContextDidSave: saved) }
    /// }
    /// ```
    public var didSaveNotifications: AsyncStream<ContextDidSave> { notifier.stream() }

    /// Applies another context's save to this one (Core Data's `mergeChanges(fromContextDidSave:)`): registered
    /// objects that were updated are reloaded with their unsaved changes kept; registered objects that were deleted
    /// leave the context; objects not registered here are left alone. Merging makes nothing pending. The cost
    /// follows the smaller of the notification and the registered objects.
    public func mergeChanges(fromContextDidSave notification: ContextDidSave) {
        assertOnQueue()
        for id in registeredIDs(among: notification.updatedObjectIDs) {
            guard let object = registeredObject(for: id) else { continue }
            // A fault is not loaded, but the row a fetch cached for it is stale now.
            guard !object.state.isFault else {
                dropCachedRow(id)
                continue
            }
            refresh(object, mergeChanges: true)
        }
        for id in registeredIDs(among: notification.deletedObjectIDs) {
            guard let object = registeredObject(for: id) else { continue }
            for entry in registered.values {
                let other = entry.takeUnretainedValue()
                for slot in other.state.toMany.indices { other.state.toMany[slot]?.removeAll { $0 == id } }
            }
            invalidate(object)
        }
    }

    /// The IDs among `ids` that are registered here, found by walking whichever side is smaller.
    private func registeredIDs(among ids: [ObjectID]) -> [ObjectID] {
        if ids.count <= registered.count { return ids.filter { registered[$0] != nil } }
        let wanted = Set(ids)
        return registered.keys.filter { wanted.contains($0) }
    }

    /// Posts `notification` to this context's listeners and to the contexts that merge it automatically.
    func post(_ notification: ContextDidSave) {
        notifier.post(notification)
        container?.contextDidSave(self, notification)
    }
}
