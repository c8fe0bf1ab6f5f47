extension ManagedObjectContext {
    /// The managed objects `request` matches, in its order (Core Data's `fetch(_:)` for managed objects).
    ///
    /// With a ``FetchRequest/fetchBatchSize`` above 0 only the matching primary keys are read at first; objects
    /// are loaded a batch at a time as the result is walked, and a batch the walk has left is released unless
    /// the caller keeps its objects, so memory stays bounded however many rows match (REFERENCE.md §5.1).
    ///
    /// Fetches read the store: objects inserted and not saved are not included (a departure from Core Data's
    /// `includesPendingChanges`), objects deleted and not saved are left out, and registered objects keep their
    /// unsaved changes.
    ///
    /// - Throws: ``FetchRequestError`` or ``FetchPredicateError`` when the request does not fit the model,
    ///   ``StoreError`` when SQLite fails.
    public func fetch(_ request: FetchRequest) throws -> FetchedObjects {
        assertOnQueue()
        let ids = try fetchObjectIDs(request)
        let storage = FetchedObjects.Storage(context: self, ids: ids, batchSize: request.fetchBatchSize)
        if request.fetchBatchSize <= 0 { try storage.loadAll() }
        return FetchedObjects(storage: storage)
    }

    /// The IDs of the objects `request` matches, leaving out objects deleted in this context.
    ///
    /// - Throws: as ``fetch(_:)``.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        assertOnQueue()
        let schema = store.schema
        let identifier = store.identifier
        let ids = try storeAccess("fetching \(request.entityName)") { connection in
            try FetchExecutor(connection: connection, schema: schema, storeIdentifier: identifier).objectIDs(
                for: request)
        }
        let deleted = pending.values.filter { $0.state.lifecycle == .deleted }
        guard !deleted.isEmpty else { return ids }
        let deletedIDs = Set(deleted.map(\.objectID))
        return ids.filter { !deletedIDs.contains($0) }
    }

    /// How many stored objects `request` matches (Core Data's `count(for:)`).
    ///
    /// - Throws: as ``fetch(_:)``.
    public func count(for request: FetchRequest) throws -> Int {
        assertOnQueue()
        let schema = store.schema
        let identifier = store.identifier
        return try storeAccess("counting \(request.entityName)") { connection in
            try FetchExecutor(connection: connection, schema: schema, storeIdentifier: identifier).count(
                for: request)
        }
    }

    /// The dictionaries `request` fetches from the store: chosen properties, aggregates and groups.
    ///
    /// - Throws: as ``fetch(_:)``.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [[String: AttributeValue?]] {
        assertOnQueue()
        let schema = store.schema
        let identifier = store.identifier
        return try storeAccess("fetching \(request.entityName)") { connection in
            try FetchExecutor(connection: connection, schema: schema, storeIdentifier: identifier).dictionaries(
                for: request)
        }
    }
}

/// The objects a fetch returned, loaded all at once or batch by batch (see ``ManagedObjectContext/fetch(_:)``).
///
/// Use it on its context's queue only, like the objects it gives. Walking it in order loads each batch once;
/// copying it into an `Array` loads every batch and keeps them all.
public struct FetchedObjects: RandomAccessCollection {
    /// The fetched objects' keys, compactly (9 bytes each: a million rows cost 9 MB), and the batch loaded.
    final class Storage {
        let context: ManagedObjectContext
        let batchSize: Int
        private let primaryKeys: [Int64]
        /// Index into `entityNames` of each object's entity.
        private let entityIndexes: [UInt16]
        private let entityNames: [String]
        private let storeIdentifier: String
        private var loadedBatch = -1
        private var objects: [ManagedObject] = []

        init(context: ManagedObjectContext, ids: [ObjectID], batchSize: Int) {
            self.context = context
            self.batchSize = batchSize
            var names: [String] = []
            var indexes: [String: UInt16] = [:]
            primaryKeys = ids.map(\.primaryKey)
            entityIndexes = ids.map { id in
                if let index = indexes[id.entityName] { return index }
                let index = UInt16(names.count)
                names.append(id.entityName)
                indexes[id.entityName] = index
                return index
            }
            entityNames = names
            storeIdentifier = context.store.identifier
        }

        var count: Int { primaryKeys.count }

        func id(at index: Int) -> ObjectID {
            ObjectID(
                entityName: entityNames[Int(entityIndexes[index])], primaryKey: primaryKeys[index],
                storeIdentifier: storeIdentifier)
        }

        func loadAll() throws {
            objects = try context.materialize((0..<count).map(id))
            loadedBatch = 0
        }

        func object(at index: Int) -> ManagedObject {
            guard batchSize > 0 else { return objects[index] }
            let batch = index / batchSize
            if batch != loadedBatch {
                let start = batch * batchSize
                let ids = (start..<Swift.min(start + batchSize, count)).map(id)
                // Release the batch left before loading the next one, so at most one batch is held here.
                objects = []
                objects = (try? context.materialize(ids)) ?? ids.map { context.object(with: $0) }
                loadedBatch = batch
            }
            return objects[index - batch * batchSize]
        }
    }

    let storage: Storage

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    /// The object at `position`, loading its batch when needed.
    public subscript(position: Int) -> ManagedObject { storage.object(at: position) }

    /// The IDs of every object, in fetch order, without loading any.
    public var objectIDs: [ObjectID] { (0..<storage.count).map(storage.id) }
}
