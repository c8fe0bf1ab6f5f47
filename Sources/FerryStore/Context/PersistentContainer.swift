public import Logging
import Synchronization

/// A model, its store and the contexts over it, set up together: Core Data's `NSPersistentContainer`.
///
/// ```swift
/// let container = PersistentContainer(
///     name: "Catalog", model: try ManagedObjectModel.load(from: "Pipelines/catalog.model.yml"),
///     storeDescription: PersistentStoreDescription(path: "catalog.sqlite"))
/// container.register(Product.self, forEntity: "Product")
/// try await container.loadPersistentStores()
///
/// try await container.performBackgroundTask { context in
///     context.mergePolicy = .mergeByPropertyStoreTrump
///     let product = context.insertObject(entityName: "Product")
///     product["sku"] = "A-1"
///     try context.save()
/// }
/// ```
///
/// Departure from Core Data: there is no main thread to bind to on a server, so ``viewContext`` runs on a serial
/// queue of its own like every other context.
public final class PersistentContainer: Sendable {
    /// The container's name, used for the default store file and in context names.
    public let name: String
    /// The model.
    public let model: ManagedObjectModel
    /// Where the store lives.
    public let storeDescription: PersistentStoreDescription
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var classes: ManagedObjectClasses
        var customValidators: [(entity: String, key: String, validator: ObjectValidator.CoercingValidator)] = []
        var store: PersistentStore?
        var viewContext: ManagedObjectContext?
        var contexts: [WeakContext] = []
        var automaticallyMergesBatchChanges = false
    }

    private struct WeakContext {
        weak var context: ManagedObjectContext?
    }

    /// A container for `model`, its store described by `storeDescription` (by default the file `<name>.sqlite`
    /// in the current directory).
    public init(
        name: String, model: ManagedObjectModel, storeDescription: PersistentStoreDescription? = nil,
        logger: Logger = Logger(label: "ferry.store")
    ) {
        self.name = name
        self.model = model
        self.storeDescription = storeDescription ?? PersistentStoreDescription(path: "\(name).sqlite")
        self.logger = logger
        self.state = Mutex(State(classes: ManagedObjectClasses(model: model)))
    }

    /// Makes `type` the class of `entity`'s objects (and of its sub-entities' that have none of their own). Call it
    /// before ``loadPersistentStores()``.
    public func register(_ type: ManagedObject.Type, forEntity entity: String) {
        state.withLock { state in
            precondition(state.store == nil, "register classes before loadPersistentStores()")
            state.classes.register(type, forEntity: entity)
        }
    }

    /// Adds a custom validation of `key` for `entity`'s objects (Core Data's `validate<Key>`), run at every save
    /// after the model's rules. Call it before ``loadPersistentStores()``.
    public func addValidator(
        entity: String, key: String, _ validator: @escaping ObjectValidator.CustomValidator
    ) {
        addCoercingValidator(entity: entity, key: key) { value in validator(value) }
    }

    /// Adds a custom validation of `key` for `entity`'s objects that may replace the value (Core Data's
    /// `validate<Key>` writing through its in-out pointer); the object keeps the replacement. Call it before
    /// ``loadPersistentStores()``.
    public func addCoercingValidator(
        entity: String, key: String, _ validator: @escaping ObjectValidator.CoercingValidator
    ) {
        state.withLock { state in
            precondition(state.store == nil, "add validators before loadPersistentStores()")
            state.customValidators.append((entity, key, validator))
        }
    }

    /// Opens the store (creating it when missing) and makes the view context.
    ///
    /// - Throws: ``ModelError`` for an invalid model, ``StoreError`` when the store cannot be opened or was made
    ///   by another model.
    public func loadPersistentStores() async throws {
        let store = try await PersistentStore.open(storeDescription, model: model, logger: logger)
        var validator = try ObjectValidator(model: model)
        try state.withLock { state in
            guard state.store == nil else {
                throw StoreError(.openFailed, "the container \(name) already loaded its store")
            }
            for custom in state.customValidators {
                validator.addCoercingValidator(entity: custom.entity, key: custom.key, custom.validator)
            }
            state.store = store
        }
        let view = makeContext(parent: nil, name: "\(name).view", validator: validator)
        state.withLock { $0.viewContext = view }
        store.batchChangeNotifier.addObserver { [weak self] changes in await self?.batchDidChange(changes) }
    }

    /// Whether the contexts of this container merge the changes of every batch request run on its store, as if
    /// each context's ``ManagedObjectContext/automaticallyMergesBatchChanges`` were on — for the contexts that did
    /// not set their own. `false` by default, as batch requests bypass contexts in Core Data; turn
    /// it on so that no context stays stale after a batch request: each request then returns only once every such
    /// context merged its changes, at a cost in proportion to the objects each context holds.
    public var automaticallyMergesBatchChanges: Bool {
        get { state.withLock { $0.automaticallyMergesBatchChanges } }
        set { state.withLock { $0.automaticallyMergesBatchChanges = newValue } }
    }

    /// The store; loading must have succeeded first.
    public var persistentStore: PersistentStore {
        guard let store = state.withLock({ $0.store }) else {
            preconditionFailure("call loadPersistentStores() before using the container")
        }
        return store
    }

    /// The context for reading (Core Data's `viewContext`): a root context, merge policy ``MergePolicy/error``.
    public var viewContext: ManagedObjectContext {
        guard let context = state.withLock({ $0.viewContext }) else {
            preconditionFailure("call loadPersistentStores() before using the container")
        }
        return context
    }

    /// A new root context for background work, each call a new one.
    public func newBackgroundContext() -> ManagedObjectContext {
        makeContext(parent: nil, name: "\(name).background", validator: viewContext.validator)
    }

    /// Runs `body` on a new background context and returns its result.
    ///
    /// - Throws: what `body` throws.
    public func performBackgroundTask<Result: Sendable>(
        _ body: @escaping @Sendable (ManagedObjectContext) throws -> Result
    ) async throws -> Result {
        let context = newBackgroundContext()
        return try await context.perform { try body(context) }
    }

    private func makeContext(
        parent: ManagedObjectContext?, name: String, validator: ObjectValidator
    ) -> ManagedObjectContext {
        let classes = state.withLock { $0.classes }
        let context = ManagedObjectContext(
            store: persistentStore, parent: parent, classes: classes, validator: validator, name: name,
            container: self)
        track(context)
        return context
    }

    /// Keeps a weak reference to `context`, for automatic merging.
    func track(_ context: ManagedObjectContext) {
        state.withLock { state in
            state.contexts.removeAll { $0.context == nil }
            state.contexts.append(WeakContext(context: context))
        }
    }

    /// The contexts made by the container that are still alive, in the order they were made (a parent before its
    /// children).
    func liveContexts() -> [ManagedObjectContext] {
        state.withLock { $0.contexts.compactMap(\.context) }
    }

    /// Merges a save into the contexts that ask for it: children of the saving context, and — for a root save —
    /// the other root contexts. Each merge runs later on its context's own queue.
    func contextDidSave(_ saving: ManagedObjectContext, _ notification: ContextDidSave) {
        let receivers = state.withLock { $0.contexts.compactMap(\.context) }.filter { context in
            guard context !== saving, context.automaticallyMergesChangesFromParent else { return false }
            if let parent = context.parent { return parent === saving }
            return saving.parent == nil
        }
        for context in receivers {
            Task { try? await context.perform { context.mergeChanges(fromContextDidSave: notification) } }
        }
    }
}
