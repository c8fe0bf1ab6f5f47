/// How a fetch turns the IDs it found into objects: ``FetchRequest/returnsObjectsAsFaults``,
/// ``FetchRequest/includesPropertyValues`` and ``FetchRequest/shouldRefreshRefetchedObjects``.
struct MaterializeOptions {
    var asFaults: Bool
    var includesPropertyValues: Bool
    var refreshesRegisteredObjects: Bool

    init(_ request: FetchRequest) {
        asFaults = request.returnsObjectsAsFaults
        includesPropertyValues = request.includesPropertyValues
        refreshesRegisteredObjects = request.shouldRefreshRefetchedObjects
    }
}

extension ManagedObjectContext {
    /// The objects for `ids`, in order, as `options` asks: without property values, faults with nothing read;
    /// otherwise as ``materialize(_:asFaults:)``, after giving the loaded objects among them the stored values when
    /// they are to be refreshed.
    ///
    /// - Throws: as ``readRows(_:of:)``.
    func materialize(_ ids: [ObjectID], options: MaterializeOptions) throws -> [ManagedObject] {
        guard options.includesPropertyValues else { return ids.map { object(with: $0) } }
        if options.refreshesRegisteredObjects { try refreshLoadedObjects(ids) }
        return try materialize(ids, asFaults: options.asFaults)
    }

    /// Gives the registered, loaded objects among `ids` the stored values: one query per entity for those without
    /// unsaved changes; a refresh keeping the changes for the updated ones. Inserted and deleted objects are left.
    private func refreshLoadedObjects(_ ids: [ObjectID]) throws {
        var clean: [String: [ObjectID]] = [:]
        for id in ids where !id.isTemporaryID {
            guard let object = registeredObject(for: id), !object.state.isFault else { continue }
            switch object.state.lifecycle {
            case .clean: clean[object.layout.name, default: []].append(id)
            case .updated: refresh(object, mergeChanges: true)
            case .inserted, .deleted, .invalid: continue
            }
        }
        for (entity, objectIDs) in clean {
            for row in try readRows(objectIDs.map(\.primaryKey), of: layout(of: entity)) {
                guard let object = registeredObject(for: row.objectID) else { continue }
                apply(row, to: object)
            }
        }
    }
}
