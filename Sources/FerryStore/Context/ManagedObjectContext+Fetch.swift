extension ManagedObjectContext {
    /// The managed objects `request` matches, in its order (Core Data's `fetch(_:)` for managed objects).
    ///
    /// With a ``FetchRequest/fetchBatchSize`` above 0 only the matching primary keys are read at first; objects
    /// are loaded a batch at a time as the result is walked, and a batch the walk has left is released unless
    /// the caller keeps its objects, so memory stays bounded however many rows match.
    ///
    /// With ``FetchRequest/includesPendingChanges`` (the default), the context's unsaved changes count: objects
    /// inserted and not saved are included when they match, updated ones are tested on their current values, deleted
    /// ones are left out. When objects of the entity have such changes, the matching IDs are gathered before any
    /// object is loaded (the batches stay bounded, the ID list does not shrink to packed keys). Registered objects
    /// keep their unsaved changes either way.
    ///
    /// - Throws: ``FetchRequestError`` or ``FetchPredicateError`` when the request does not fit the model,
    ///   ``StoreError`` when SQLite fails.
    public func fetch(_ request: FetchRequest) throws -> FetchedObjects {
        assertOnQueue()
        if request.includesPendingChanges, let ids = try objectIDsIncludingPendingChanges(request) {
            let storage = FetchedObjects.Storage(
                context: self, ids: ids, batchSize: request.fetchBatchSize,
                options: MaterializeOptions(request), prefetching: request.relationshipKeyPathsForPrefetching)
            if request.fetchBatchSize <= 0 { try storage.loadAll() }
            return FetchedObjects(storage: storage)
        }
        let deleted = Set(pending.values.filter { $0.state.lifecycle == .deleted }.map(\.objectID))
        var maker = ObjectIDMaker(storeIdentifier: store.identifier)
        var keys = CompactObjectKeys(blockSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : 1_000)
        try withFetchExecutor(request) { executor in
            try executor.forEachObject(matching: request) { key, entity in
                if !deleted.isEmpty,
                    deleted.contains(maker.id(entityName: entity, primaryKey: key))
                {
                    return
                }
                keys.append(key, entity: entity)
            }
        }
        let storage = FetchedObjects.Storage(
            context: self, keys: keys, loadsInBatches: request.fetchBatchSize > 0,
            options: MaterializeOptions(request), prefetching: request.relationshipKeyPathsForPrefetching)
        if request.fetchBatchSize <= 0 { try storage.loadAll() }
        return FetchedObjects(storage: storage)
    }

    /// The IDs of the objects `request` matches, leaving out objects deleted in this context, and with
    /// ``FetchRequest/includesPendingChanges`` including the objects inserted (with their temporary IDs) or updated
    /// that match, as ``fetch(_:)->FetchedObjects``.
    ///
    /// - Throws: as ``fetch(_:)->FetchedObjects``.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        assertOnQueue()
        if request.includesPendingChanges, let ids = try objectIDsIncludingPendingChanges(request) { return ids }
        let ids = try withFetchExecutor(request) { try $0.objectIDs(for: request) }
        let deleted = pending.values.filter { $0.state.lifecycle == .deleted }
        guard !deleted.isEmpty else { return ids }
        let deletedIDs = Set(deleted.map(\.objectID))
        return ids.filter { !deletedIDs.contains($0) }
    }

    /// How many objects `request` matches (Core Data's `count(for:)`): always as many as
    /// ``fetch(_:)->FetchedObjects`` returns.
    /// Objects deleted in this context and not saved are left out, as the fetch leaves them out, and with
    /// ``FetchRequest/includesPendingChanges`` unsaved inserts and updates count as the fetch counts them; the store
    /// counts in SQL when there are none.
    ///
    /// - Throws: as ``fetch(_:)->FetchedObjects``.
    public func count(for request: FetchRequest) throws -> Int {
        assertOnQueue()
        if request.includesPendingChanges, let ids = try objectIDsIncludingPendingChanges(request) { return ids.count }
        let deletesStoredObjects = pending.values.contains {
            $0.state.lifecycle == .deleted && $0.state.committed != nil
        }
        if deletesStoredObjects { return try fetchObjectIDs(request).count }
        return try withFetchExecutor(request) { try $0.count(for: request) }
    }

    /// The dictionaries `request` fetches from the store: chosen properties, aggregates and groups. They reflect
    /// the store alone, whatever ``FetchRequest/includesPendingChanges`` says, as in Core Data.
    ///
    /// - Throws: as ``fetch(_:)->FetchedObjects``.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [[String: AttributeValue?]] {
        assertOnQueue()
        return try withFetchExecutor(request) { try $0.dictionaries(for: request) }
    }

    /// Runs `body` with a fetch executor on the store's writer.
    func withFetchExecutor<Result>(
        _ request: FetchRequest, _ body: (FetchExecutor) throws -> Result
    ) throws -> Result {
        let schema = store.schema
        let identifier = store.identifier
        return try storeAccess("fetching \(request.entityName)") { connection in
            try body(FetchExecutor(connection: connection, schema: schema, storeIdentifier: identifier))
        }
    }
}

/// The objects a fetch returned, loaded all at once or batch by batch (see
/// ``ManagedObjectContext/fetch(_:)->FetchedObjects``).
///
/// Use it on its context's queue only, like the objects it gives. Walking it in order loads each batch once;
/// copying it into an `Array` loads every batch and keeps them all.
public struct FetchedObjects: RandomAccessCollection {
    /// The fetched objects' keys, packed (``CompactObjectKeys``), and the batch loaded.
    final class Storage {
        let context: ManagedObjectContext
        let keys: CompactObjectKeys
        /// The IDs when they were listed rather than packed (a fetch including pending changes, whose objects may
        /// have temporary IDs).
        private let listedIDs: [ObjectID]?
        let loadsInBatches: Bool
        let options: MaterializeOptions
        let prefetching: [String]
        private let store: ObjectIDName
        private var loadedBatch = -1
        private var objects: [ManagedObject] = []
        /// The destinations prefetched for `objects`, kept alive with them.
        private var prefetched: [ManagedObject] = []

        init(
            context: ManagedObjectContext, keys: CompactObjectKeys, loadsInBatches: Bool, options: MaterializeOptions,
            prefetching: [String]
        ) {
            self.context = context
            self.keys = keys
            self.loadsInBatches = loadsInBatches
            self.options = options
            self.prefetching = prefetching
            self.store = ObjectIDName(context.store.identifier)
            self.listedIDs = nil
        }

        init(
            context: ManagedObjectContext, ids: [ObjectID], batchSize: Int, options: MaterializeOptions,
            prefetching: [String]
        ) {
            self.context = context
            self.keys = CompactObjectKeys(blockSize: batchSize > 0 ? batchSize : Swift.max(ids.count, 1))
            self.listedIDs = ids
            self.loadsInBatches = batchSize > 0
            self.options = options
            self.prefetching = prefetching
            self.store = ObjectIDName(context.store.identifier)
        }

        var count: Int { listedIDs?.count ?? keys.count }

        var blockCount: Int {
            guard let listedIDs else { return keys.blockCount }
            return (listedIDs.count + keys.blockSize - 1) / keys.blockSize
        }

        func ids(inBatch batch: Int) -> [ObjectID] {
            if let listedIDs {
                let start = batch * keys.blockSize
                return Array(listedIDs[start..<Swift.min(start + keys.blockSize, listedIDs.count)])
            }
            var maker = ObjectIDMaker(store: store)
            return keys.block(batch).map { maker.id(entityName: $0.entity, primaryKey: $0.key) }
        }

        func loadAll() throws {
            objects = try load((0..<blockCount).flatMap(ids(inBatch:)))
        }

        private func load(_ ids: [ObjectID]) throws -> [ManagedObject] {
            let objects = try context.materialize(ids, options: options)
            if !prefetching.isEmpty, options.includesPropertyValues {
                prefetched = try context.prefetch(prefetching, of: objects, asFaults: options.asFaults)
            }
            return objects
        }

        func object(at index: Int) -> ManagedObject {
            guard loadsInBatches else { return objects[index] }
            let batch = index / keys.blockSize
            if batch != loadedBatch {
                let ids = ids(inBatch: batch)
                // Release the batch left before loading the next one, so at most one batch is held here.
                objects = []
                prefetched = []
                objects = (try? load(ids)) ?? ids.map { context.object(with: $0) }
                loadedBatch = batch
            }
            return objects[index - batch * keys.blockSize]
        }
    }

    let storage: Storage

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    /// The object at `position`, loading its batch when needed.
    public subscript(position: Int) -> ManagedObject { storage.object(at: position) }

    /// The IDs of every object, in fetch order, without loading any.
    public var objectIDs: [ObjectID] { (0..<storage.blockCount).flatMap(storage.ids(inBatch:)) }
}
