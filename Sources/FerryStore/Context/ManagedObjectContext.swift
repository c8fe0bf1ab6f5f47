import Dispatch
import Foundation
import Synchronization

/// A scratch pad of managed objects over a store: Core Data's `NSManagedObjectContext`.
///
/// Every context runs on a serial queue of its own. Use it, and its objects, only inside ``perform(_:)`` (async)
/// or ``performAndWait(_:)`` (blocking, reentrant):
///
/// ```swift
/// let context = container.newBackgroundContext()
/// context.mergePolicy = .mergeByPropertyStoreTrump
/// try await context.perform {
///     let category = context.insertObject(entityName: "Category")
///     category["name"] = "Tea"
///     try context.save()
/// }
/// ```
///
/// Objects are unique per context: fetching a row twice gives the same instance. Objects without unsaved changes
/// are held weakly, so walking a large fetch or calling ``reset()`` per chunk keeps memory bounded.
///
/// Concurrency check (Core Data's `com.apple.CoreData.ConcurrencyDebug`): in debug builds, or with
/// `FERRY_CONCURRENCY_DEBUG=1`, touching a context or its objects outside its queue stops the program with a
/// message naming the context. Swift 6's checks keep objects (which are not `Sendable`) from leaving the queue.
public final class ManagedObjectContext: @unchecked Sendable {
    // @unchecked Sendable: the settings are behind a mutex; everything else mutable is touched only on `queue`,
    // which `assertOnQueue()` checks in debug builds.

    /// The store the context reads and (for a root context) writes.
    public let store: PersistentStore
    /// The parent context of a child context; `nil` for a root context, which saves to the store.
    public let parent: ManagedObjectContext?
    let classes: ManagedObjectClasses
    let validator: ObjectValidator
    let notifier = SaveNotifier()
    /// Listeners of objects-did-change and will-save notifications.
    let changeBroadcaster = NotificationBroadcaster<ContextObjectsDidChange>()
    let willSaveBroadcaster = NotificationBroadcaster<ContextWillSave>()
    /// What changed since the last `processPendingChanges`, recorded only while someone listens.
    var eventChanges = ContextObjectsDidChange.none
    weak var container: PersistentContainer?

    private let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    private let settings: Mutex<Settings>

    /// Registered objects, held weakly: an object leaves the table when it is deallocated.
    var registered: [ObjectID: Unmanaged<ManagedObject>] = [:]
    /// Objects with unsaved changes, held strongly until saved, rolled back or reset.
    var pending: [ObjectID: ManagedObject] = [:]
    /// Pending many-to-many (and inverse-less to-many) membership changes, by join table.
    var joinChanges: [JoinChange] = []
    /// Rows read by fetches for objects returned as faults, so the faults fire without I/O; an entry goes when
    /// its object fires, is refreshed or deallocates.
    var rowCache: [ObjectID: StoredRow] = [:]
    /// When each row-cache entry was read (`DispatchTime` nanoseconds), recorded only while ``stalenessInterval`` is
    /// not negative.
    var rowCacheTimes: [ObjectID: UInt64] = [:]
    /// ``stalenessInterval``'s bit pattern: read on every fault fired from the row cache, so without a lock.
    let stalenessBits = Atomic<UInt64>((-1.0).bitPattern)
    /// Strong references to every registered object while ``retainsRegisteredObjects`` is on; `nil` when off.
    var retainedObjects: [ObjectID: ManagedObject]?
    /// Counts ``processPendingChanges()`` calls: the current event of ``ManagedObject/changedValuesForCurrentEvent()``.
    var eventNumber = 0
    /// The read transaction of the query generation the context is pinned to; `nil` when not pinned.
    var pinnedGeneration: PinnedGeneration?
    /// Deleted objects whose delete rules have not run yet.
    var unpropagatedDeletions: [ObjectID] = []
    /// Whether a save (or the importer's check) is validating: the base `validateFor…` methods then leave the
    /// model's rules to it, which has run them already.
    var isValidatingPendingObjects = false
    var nextInsertionIndex = 0

    struct Settings {
        var name: String?
        var transactionAuthor: String?
        var mergePolicy: MergePolicy = .error
        var customMergePolicy: (any CustomMergePolicy)?
        var automaticallyMergesChangesFromParent = false
        /// `nil`: the container's setting.
        var automaticallyMergesBatchChanges: Bool?
    }

    /// Whether the concurrency check runs: in debug builds, or when `FERRY_CONCURRENCY_DEBUG=1`.
    static let checksConcurrency: Bool = {
        switch ProcessInfo.processInfo.environment["FERRY_CONCURRENCY_DEBUG"] {
        case "1": return true
        case "0": return false
        default: return _isDebugAssertConfiguration()
        }
    }()

    init(
        store: PersistentStore, parent: ManagedObjectContext?, classes: ManagedObjectClasses,
        validator: ObjectValidator, name: String?, container: PersistentContainer?
    ) {
        self.store = store
        self.parent = parent
        self.classes = classes
        self.validator = validator
        self.container = container
        self.settings = Mutex(Settings(name: name))
        self.queue = DispatchQueue(label: "ferry.context" + (name.map { "." + $0 } ?? ""))
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
    }

    /// A child context whose saves go into this one (Core Data's `parent`): changes reach the store only when
    /// the root context saves. Uniqueness and optimistic-locking checks run at that root save.
    public func newChildContext(name: String? = nil) -> ManagedObjectContext {
        let child = ManagedObjectContext(
            store: store, parent: self, classes: classes, validator: validator, name: name, container: container)
        container?.track(child)
        return child
    }

    // MARK: Settings

    /// A label for logs and persistent history (Core Data's `name`).
    public var name: String? {
        get { settings.withLock { $0.name } }
        set { settings.withLock { $0.name = newValue } }
    }

    /// Recorded as the author of the history transactions this context's saves make.
    public var transactionAuthor: String? {
        get { settings.withLock { $0.transactionAuthor } }
        set { settings.withLock { $0.transactionAuthor = newValue } }
    }

    /// How a save resolves conflicts with the store; ``MergePolicy/error`` by default, as in Core Data.
    public var mergePolicy: MergePolicy {
        get { settings.withLock { $0.mergePolicy } }
        set { settings.withLock { $0.mergePolicy = newValue } }
    }

    /// A merge policy of one's own that decides each conflict of a save (see ``CustomMergePolicy``); when set, it
    /// takes over from ``mergePolicy``. `nil` by default.
    public var customMergePolicy: (any CustomMergePolicy)? {
        get { settings.withLock { $0.customMergePolicy } }
        set { settings.withLock { $0.customMergePolicy = newValue } }
    }

    /// Whether saves of the parent (for a child) or of other root contexts of the same container (for a root
    /// context) are merged into this context automatically. `false` by default.
    public var automaticallyMergesChangesFromParent: Bool {
        get { settings.withLock { $0.automaticallyMergesChangesFromParent } }
        set { settings.withLock { $0.automaticallyMergesChangesFromParent = newValue } }
    }

    /// Whether the changes of every batch request run on the store are merged into this context, on its queue,
    /// before the request returns (see ``mergeChanges(fromRemoteContextSave:into:)`` for the effect). Not in Core
    /// Data, where batch requests never reach contexts by themselves. Until set, it follows the container's
    /// ``PersistentContainer/automaticallyMergesBatchChanges`` (off by default).
    public var automaticallyMergesBatchChanges: Bool {
        get {
            settings.withLock { $0.automaticallyMergesBatchChanges }
                ?? container?.automaticallyMergesBatchChanges ?? false
        }
        set { settings.withLock { $0.automaticallyMergesBatchChanges = newValue } }
    }

    // MARK: Running on the queue

    /// Runs `body` on the context's queue and returns its result, suspending the caller meanwhile. Pending
    /// deletions propagate at the end, as Core Data's `processPendingChanges` at the end of a `perform`.
    ///
    /// - Throws: what `body` throws.
    public func perform<Result: Sendable>(
        _ body: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        if isOnQueue { return try runProcessingChanges(body) }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Swift.Result { try self.runMarked { try self.runProcessingChanges(body) } })
            }
        }
    }

    /// Runs `body` on the context's queue and waits for it; runs at once when already on the queue (reentrant).
    ///
    /// Blocks the calling thread: from Swift concurrency code prefer ``perform(_:)``.
    /// - Throws: what `body` throws.
    public func performAndWait<Result>(_ body: () throws -> Result) rethrows -> Result {
        if isOnQueue { return try body() }
        return try queue.sync { try runMarked(body) }
    }

    private func runProcessingChanges<Result>(_ body: () throws -> Result) throws -> Result {
        let result = try body()
        processPendingChanges()
        return result
    }

    /// Whether the caller runs on this context's queue — directly, or in a `performAndWait` of another context
    /// called from it (a child asking its parent for values), where the thread still holds this queue.
    public var isOnQueue: Bool {
        DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self)
            || Self.runningContexts.contains(ObjectIdentifier(self))
    }

    /// The contexts whose work the current thread is running, innermost last.
    private static var runningContexts: [ObjectIdentifier] {
        get { Thread.current.threadDictionary[runningContextsKey] as? [ObjectIdentifier] ?? [] }
        set { Thread.current.threadDictionary[runningContextsKey] = newValue }
    }
    private static let runningContextsKey = "ferry.runningContexts"

    /// Runs `body`, marking this context as running on the current thread.
    private func runMarked<Result>(_ body: () throws -> Result) rethrows -> Result {
        Self.runningContexts.append(ObjectIdentifier(self))
        defer { Self.runningContexts.removeLast() }
        return try body()
    }

    /// Stops the program when called off the context's queue, if the concurrency check is on.
    func assertOnQueue() {
        guard Self.checksConcurrency, !isOnQueue else { return }
        preconditionFailure(
            "ManagedObjectContext '\(name ?? "unnamed")' (or one of its objects) used outside its perform or "
                + "performAndWait; pass object IDs between contexts (Ferry's concurrency check, "
                + "FERRY_CONCURRENCY_DEBUG)")
    }

    // MARK: Objects

    /// Inserts a new object of `entityName` (an instance of the class registered for it), with the model's default
    /// values, and calls its `awakeFromInsert()`.
    ///
    /// The entity must exist and not be abstract; anything else is a programming error and traps.
    @discardableResult
    public func insertObject(entityName: String) -> ManagedObject {
        assertOnQueue()
        let layout = layout(of: entityName)
        precondition(!layout.entity.isAbstract, "\(entityName) is abstract; insert one of its sub-entities")
        let object = makeObject(layout, id: .temporary(entity: layout.objectIDName))
        object.state = ObjectState(inserting: layout, insertionIndex: nextInsertionIndex)
        nextInsertionIndex += 1
        register(object)
        pending[object.objectID] = object
        object.awakeFromInsert()
        recordEventChange(object.objectID, .inserted)
        return object
    }

    /// Inserts a new object of `entityName` as an instance of `type`, the class registered for the entity.
    public func insert<Object: ManagedObject>(_ type: Object.Type, entityName: String) -> Object {
        guard let object = insertObject(entityName: entityName) as? Object else {
            preconditionFailure("the class registered for \(entityName) is not \(Object.self)")
        }
        return object
    }

    /// The registered object with `id`, or `nil`; never reads the store (Core Data's `registeredObject(for:)`).
    public func registeredObject(for id: ObjectID) -> ManagedObject? {
        assertOnQueue()
        return registered[id]?.takeUnretainedValue()
    }

    /// The object with `id`: the registered one, or a new fault that loads its values when first read (Core Data's
    /// `object(with:)`). A fault of a row that no longer exists reads as empty values and is marked deleted when it
    /// fires.
    public func object(with id: ObjectID) -> ManagedObject {
        if let object = registeredObject(for: id) { return object }
        // A child reaches the objects its ancestors inserted by their temporary IDs (their values come from them).
        precondition(
            !id.isTemporaryID || parent != nil,
            "\(id) is a temporary ID of another context; save or obtainPermanentIDs first")
        let object = makeObject(layout(of: id.entity), id: id)
        register(object)
        return object
    }

    /// The object with `id`, loaded, or an error when its row does not exist (Core Data's `existingObject(with:)`).
    ///
    /// - Throws: ``StoreError`` `.objectNotFound` when the store has no such row.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        let object = object(with: id)
        if object.state.isFault {
            guard try loadValues(of: object) else {
                throw StoreError(.objectNotFound, "\(id) is not in the store")
            }
        }
        return object
    }

    /// Marks `object` deleted; its delete rules run at the next save (or ``processPendingChanges()``), and the
    /// row is removed by that save. Deleting an object inserted and not saved simply drops it at the save.
    public func delete(_ object: ManagedObject) {
        assertOnQueue()
        precondition(object.managedObjectContext === self, "\(object.objectID) belongs to another context")
        guard object.state.lifecycle != .deleted, object.state.lifecycle != .invalid else { return }
        object.willAccessValues()
        object.state.lifecycle = .deleted
        pending[object.objectID] = object
        unpropagatedDeletions.append(object.objectID)
        recordEventChange(object.objectID, .deleted)
    }

    /// Whether the context has unsaved changes.
    public var hasChanges: Bool {
        assertOnQueue()
        return pending.values.contains { $0.state.lifecycle != .clean }
    }

    /// The objects inserted and not saved.
    public var insertedObjects: [ManagedObject] { pendingObjects(.inserted) }
    /// The saved objects with unsaved changes.
    public var updatedObjects: [ManagedObject] {
        pendingObjects(.updated).filter { $0.state.hasPersistentChanges($0.layout) }
    }
    /// The objects deleted, the deletions not saved.
    public var deletedObjects: [ManagedObject] { pendingObjects(.deleted) }

    /// Every object registered in the context.
    public var registeredObjects: [ManagedObject] {
        assertOnQueue()
        return registered.values.map { $0.takeUnretainedValue() }
    }

    private func pendingObjects(_ lifecycle: ObjectLifecycle) -> [ManagedObject] {
        assertOnQueue()
        return Self.inSaveOrder(pending.values.filter { $0.state.lifecycle == lifecycle })
    }

    /// `objects` with the never-saved ones first, in insertion order, then saved ones by primary key.
    static func inSaveOrder(_ objects: some Collection<ManagedObject>) -> [ManagedObject] {
        objects.map { object in
            let key =
                object.state.committed == nil
                ? Int64(object.state.insertionIndex) : Int64(Int32.max) + object.objectID.primaryKey
            return (key, object)
        }
        .sorted { $0.0 < $1.0 }.map(\.1)
    }

    // MARK: Internals

    func layout(of entity: String) -> EntityLayout {
        store.layouts[entity]
    }

    func layout(of entity: ObjectIDName) -> EntityLayout {
        store.layouts[entity]
    }

    func makeObject(_ layout: EntityLayout, id: ObjectID) -> ManagedObject {
        classes.type(for: layout.name).init(entity: layout.entity, objectID: id, context: self)
    }

    /// Makes room for `count` more registered and pending objects, for an importer that knows how many a chunk
    /// inserts: the tables then never grow (and rehash) while it fills them.
    package func reserveCapacity(forObjects count: Int) {
        assertOnQueue()
        registered.reserveCapacity(registered.count + count)
        pending.reserveCapacity(pending.count + count)
    }

    func register(_ object: ManagedObject) {
        registered[object.objectID] = Unmanaged.passUnretained(object)
        if retainedObjects != nil { retainedObjects?[object.objectID] = object }
    }

    /// Called by an object being deallocated.
    func objectWillDeallocate(_ id: ObjectID) {
        registered[id] = nil
        dropCachedRow(id)
    }

    /// Records that a persistent value of `object` changed.
    func objectDidChange(_ object: ManagedObject) {
        if object.state.lifecycle != .inserted { recordEventChange(object.objectID, .updated) }
        guard object.state.lifecycle == .clean else { return }
        object.state.lifecycle = .updated
        pending[object.objectID] = object
    }

    /// Takes `object` out of the context for good.
    func invalidate(_ object: ManagedObject, unregistering: Bool = true) {
        if unregistering { registered[object.objectID] = nil }
        if retainedObjects != nil { retainedObjects?[object.objectID] = nil }
        dropCachedRow(object.objectID)
        pending[object.objectID] = nil
        object.state.lifecycle = .invalid
        object.managedObjectContext = nil
    }

    /// Turns `object` back into a fault, dropping its values and unsaved changes.
    func turnIntoFault(_ object: ManagedObject) {
        object.willTurnIntoFault()
        pending[object.objectID] = nil
        dropCachedRow(object.objectID)
        let layout = object.layout
        object.state = ObjectState(layout: layout)
        object.didTurnIntoFault()
    }
}
