import Synchronization

/// What changed in a context during one event, by object ID: Core Data's `NSManagedObjectContextObjectsDidChange`
/// notification, posted at the end of ``ManagedObjectContext/processPendingChanges()`` (the end of each `perform`
/// and `performAndWait`, and the start of a save) when something changed since the last one.
public struct ContextObjectsDidChange: Sendable, Hashable {
    /// Objects inserted during the event (their temporary IDs).
    public var insertedObjectIDs: Set<ObjectID>
    /// Objects, not inserted during the event, whose persistent values changed during it.
    public var updatedObjectIDs: Set<ObjectID>
    /// Objects deleted during the event, cascades included.
    public var deletedObjectIDs: Set<ObjectID>
    /// Whether ``ManagedObjectContext/reset()`` forgot every object (Core Data's `NSInvalidatedAllObjectsKey`).
    public var invalidatedAllObjects: Bool

    /// Whether nothing changed.
    var isEmpty: Bool {
        insertedObjectIDs.isEmpty && updatedObjectIDs.isEmpty && deletedObjectIDs.isEmpty && !invalidatedAllObjects
    }

    static let none = ContextObjectsDidChange(
        insertedObjectIDs: [], updatedObjectIDs: [], deletedObjectIDs: [], invalidatedAllObjects: false)
}

/// What a context is about to save: Core Data's `NSManagedObjectContextWillSave`, posted at the start of a save that
/// has changes, after the pending changes are processed (so cascaded deletions are listed) and before `willSave()`
/// runs on the objects. Core Data's notification carries no sets; Ferry's lists what the save will write.
public struct ContextWillSave: Sendable, Hashable {
    /// Objects to insert (their temporary IDs).
    public var insertedObjectIDs: Set<ObjectID>
    /// Objects to update.
    public var updatedObjectIDs: Set<ObjectID>
    /// Objects to delete.
    public var deletedObjectIDs: Set<ObjectID>
    /// The saving context's name.
    public var contextName: String?
}

/// Hands each notification of one kind to every current listener, and tells whether there are any (so a context
/// records an event's changes only while someone listens).
final class NotificationBroadcaster<Notification: Sendable>: Sendable {
    private let listeners = Mutex<[Int: AsyncStream<Notification>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)
    private let listenerCount = Atomic<Int>(0)

    /// A new stream of the notifications posted from now on; it ends when the caller stops iterating.
    func stream() -> AsyncStream<Notification> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<Notification>.makeStream()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            if self.listeners.withLock({ $0.removeValue(forKey: id) }) != nil {
                self.listenerCount.subtract(1, ordering: .relaxed)
            }
        }
        listeners.withLock { $0[id] = continuation }
        listenerCount.add(1, ordering: .relaxed)
        return stream
    }

    /// Whether anyone listens.
    var hasListeners: Bool { listenerCount.load(ordering: .relaxed) > 0 }

    /// Ends every current stream, after the notifications already posted.
    func finish() {
        let ended = listeners.withLock { listeners in
            defer { listeners.removeAll() }
            return Array(listeners.values)
        }
        listenerCount.subtract(ended.count, ordering: .relaxed)
        for continuation in ended { continuation.finish() }
    }

    func post(_ notification: Notification) {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(notification) }
    }
}

extension ManagedObjectContext {
    /// The objects-did-change notifications of this context, from the moment the stream is made. A context records
    /// what changes only while such a stream exists, so an importer that listens to nothing pays nothing.
    ///
    /// ```swift
    /// let changes = context.objectsDidChangeNotifications
    /// Task { for await change in changes { print(change.updatedObjectIDs.count, "updated") } }
    /// ```
    public var objectsDidChangeNotifications: AsyncStream<ContextObjectsDidChange> { changeBroadcaster.stream() }

    /// The will-save notifications of this context, from the moment the stream is made.
    public var willSaveNotifications: AsyncStream<ContextWillSave> { willSaveBroadcaster.stream() }

    /// Records that `id` was inserted (`.inserted`), changed (`.updated`) or deleted (`.deleted`) during this event.
    func recordEventChange(_ id: ObjectID, _ kind: PendingChangeKind) {
        guard changeBroadcaster.hasListeners else { return }
        switch kind {
        case .inserted: eventChanges.insertedObjectIDs.insert(id)
        case .updated:
            // Objects inserted or deleted in the event are listed as such, whatever else changes in them.
            guard !eventChanges.insertedObjectIDs.contains(id), !eventChanges.deletedObjectIDs.contains(id) else {
                return
            }
            eventChanges.updatedObjectIDs.insert(id)
        case .deleted:
            if eventChanges.insertedObjectIDs.remove(id) == nil { eventChanges.deletedObjectIDs.insert(id) }
            eventChanges.updatedObjectIDs.remove(id)
        }
    }

    /// Records that the context forgot every object.
    func recordReset() {
        guard changeBroadcaster.hasListeners else { return }
        eventChanges = .none
        eventChanges.invalidatedAllObjects = true
    }

    /// Posts what changed since the last event, if anything did.
    func postEventChanges() {
        guard !eventChanges.isEmpty else { return }
        let changes = eventChanges
        eventChanges = .none
        changeBroadcaster.post(changes)
    }

    /// Posts the will-save notification, when someone listens.
    func postWillSave() {
        guard willSaveBroadcaster.hasListeners else { return }
        var notification = ContextWillSave(
            insertedObjectIDs: [], updatedObjectIDs: [], deletedObjectIDs: [], contextName: name)
        for object in pending.values {
            switch object.state.lifecycle {
            case .inserted: notification.insertedObjectIDs.insert(object.objectID)
            case .updated: notification.updatedObjectIDs.insert(object.objectID)
            case .deleted where !object.objectID.isTemporaryID: notification.deletedObjectIDs.insert(object.objectID)
            case .deleted, .clean, .invalid: continue
            }
        }
        willSaveBroadcaster.post(notification)
    }
}
