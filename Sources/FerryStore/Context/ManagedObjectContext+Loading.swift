import FerrySQLite

extension ManagedObjectContext {
    /// Loads the values of a fault when one of its properties is first read. A row that no longer exists (deleted by
    /// a batch delete or another context) leaves the object with empty values and marks it deleted, as Core Data's
    /// `shouldDeleteInaccessibleFaults` (on by default) does; nothing is pending, so no save tries to delete the row
    /// again. When SQLite fails the values are left empty and the object is not marked.
    func fulfillFault(_ object: ManagedObject) {
        if let row = rowCache.removeValue(forKey: object.objectID), isFresh(cachedRowOf: object.objectID) {
            apply(row, to: object)
            return
        }
        let isMissing = (try? loadValues(of: object)).map { !$0 } ?? false
        guard object.state.isFault else { return }
        object.state.isFault = false
        object.state.toMany = Array(repeating: [], count: object.layout.toMany.count)
        if isMissing { object.state.lifecycle = .deleted }
    }

    /// Loads `object`'s values: from the parent context when it holds the object (a child sees its parent's
    /// unsaved state), otherwise from the store. Returns `false` when the row does not exist.
    ///
    /// - Throws: ``StoreError`` when SQLite fails.
    @discardableResult
    func loadValues(of object: ManagedObject) throws -> Bool {
        if let parent, let state = parent.performAndWait({ parent.stateForChild(object.objectID) }) {
            adopt(state, to: object)
            return true
        }
        guard !object.objectID.isTemporaryID,
            let row = try readRows([object.objectID.primaryKey], of: object.layout).first
        else { return false }
        apply(row, to: object)
        return true
    }

    /// The values of a registered, loaded object, for a child context faulting it in.
    func stateForChild(_ id: ObjectID) -> ObjectState? {
        guard let object = registeredObject(for: id), !object.state.isFault,
            object.state.lifecycle != .deleted, object.state.lifecycle != .invalid
        else { return nil }
        return object.state
    }

    /// Fills `object` with the parent's `state` of it, as the values it starts from, and calls `awakeFromFetch()`.
    func adopt(_ state: ObjectState, to object: ManagedObject) {
        object.state = state
        object.state.lifecycle = .clean
        object.state.fetchedProperties = nil
        object.state.committed = ObjectSnapshot(
            attributes: state.attributes, toOne: state.toOne, version: state.committed?.version ?? 0)
        object.awakeFromFetch()
    }

    /// Fills `object` with `row` and calls `awakeFromFetch()`.
    func apply(_ row: StoredRow, to object: ManagedObject) {
        object.state.attributes = row.attributes
        object.state.toOne = row.toOne
        object.state.toMany = Array(repeating: nil, count: object.layout.toMany.count)
        object.state.committed = ObjectSnapshot(attributes: row.attributes, toOne: row.toOne, version: row.version)
        object.state.isFault = false
        object.state.lifecycle = .clean
        object.awakeFromFetch()
    }

    /// Reads the rows of `keys` (all of one entity's layout), in no particular order.
    ///
    /// - Throws: ``StoreError`` when SQLite fails, ``FetchRequestError`` when a value does not decode.
    func readRows(_ keys: [Int64], of layout: EntityLayout) throws -> [StoredRow] {
        let schema = store.schema
        let identifier = store.identifier
        return try storeAccess("loading \(layout.name) objects") { connection in
            try layout.readRows(keys, on: connection, schema: schema, storeIdentifier: identifier)
        }
    }

    /// Runs `body` on the store's writer (or, to read, on the pinned query generation's connection when there is
    /// one), turning SQLite errors into ``StoreError`` `.sqlite` saying what was being done.
    func storeAccess<Result>(
        _ doing: String, writing: Bool = false, _ body: (Connection) throws -> Result
    ) throws -> Result {
        do {
            if !writing, let pinned = pinnedGeneration { return try body(pinned.connection) }
            return try store.writer.sync(body)
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "\(doing) failed", path: store.writer.path, underlying: error)
        }
    }

    // MARK: Materializing fetched objects

    /// The objects for `ids`, in order: registered ones as they are (their unsaved changes kept), the others
    /// loaded from the store in as few queries as possible — applied, or kept in the row cache behind faults when
    /// `asFaults`.
    ///
    /// - Throws: as ``readRows(_:of:)``.
    func materialize(_ ids: [ObjectID], asFaults: Bool = false) throws -> [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        var toLoad: [ObjectIDName: [Int64]] = [:]
        for id in ids {
            let object = object(with: id)
            objects.append(object)
            if object.state.isFault && rowCache[id] == nil { toLoad[id.entity, default: []].append(id.primaryKey) }
        }
        let readAt = asFaults ? rowCacheTimestamp() : nil
        for (entity, keys) in toLoad {
            for row in try readRows(keys, of: layout(of: entity)) {
                guard let object = registeredObject(for: row.objectID), object.state.isFault else { continue }
                if asFaults { cache(row, readAt: readAt) } else { apply(row, to: object) }
            }
        }
        if !asFaults {
            for object in objects where object.state.isFault { fulfillFault(object) }
        }
        return objects
    }

    /// Loads the destinations of the to-one key paths `keyPaths` of `objects` in bulk: one query per entity per
    /// step of each path. Returns the destinations, which the caller keeps as long as `objects` (their rows stay in
    /// the row cache only while they live).
    ///
    /// - Throws: as ``readRows(_:of:)``.
    func prefetch(_ keyPaths: [String], of objects: [ManagedObject], asFaults: Bool) throws -> [ManagedObject] {
        var loaded: [ManagedObject] = []
        for keyPath in keyPaths {
            var current = objects
            for name in keyPath.split(separator: ".").map(String.init) {
                var destinations: [ObjectID] = []
                var seen: Set<ObjectID> = []
                for object in current {
                    guard case .toOne(let slot)? = object.layout.slots[name] else {
                        preconditionFailure("'\(name)' of \(object.layout.name) is not a to-one relationship")
                    }
                    let toOne = object.state.isFault ? rowCache[object.objectID]?.toOne : object.state.toOne
                    if let id = toOne?[slot] ?? nil, seen.insert(id).inserted { destinations.append(id) }
                }
                current = try materialize(destinations, asFaults: asFaults)
                loaded += current
            }
        }
        return loaded
    }
}
