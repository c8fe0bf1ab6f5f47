extension ManagedObject {
    /// The objects of the fetched property `key` (Core Data's `value(forKey:)` on an `NSFetchedPropertyDescription`):
    /// the objects of its destination entity that match its predicate, with `$FETCH_SOURCE` standing for this object.
    ///
    /// The fetch runs the first time the property is read and its result is kept: objects inserted, changed or
    /// deleted afterwards do not change it until this object is refreshed
    /// (``ManagedObjectContext/refresh(_:mergeChanges:)``, either way) or turned into a fault, as in Core Data.
    /// The fetch sees the context's unsaved changes (``FetchRequest/includesPendingChanges``).
    ///
    /// ```swift
    /// let others = try tea.fetchedObjects(forKey: "sameCategory")
    /// ```
    ///
    /// `key` must name a fetched property of the object's entity (inherited ones included); anything else traps.
    /// - Throws: ``FetchPredicateError`` when the predicate does not fit the destination entity or uses a variable
    ///   other than `$FETCH_SOURCE`; ``StoreError`` when SQLite fails.
    public func fetchedObjects(forKey key: String) throws -> [ManagedObject] {
        try fetchedObjectIDs(forKey: key).map { context.object(with: $0) }
    }

    /// The IDs of the fetched property `key`'s objects, as ``fetchedObjects(forKey:)``, without loading them.
    ///
    /// - Throws: as ``fetchedObjects(forKey:)``.
    public func fetchedObjectIDs(forKey key: String) throws -> [ObjectID] {
        willAccessValues()
        if let ids = state.fetchedProperties?[key] { return ids }
        let context = self.context
        guard let property = context.store.schema.model.allFetchedProperties(of: layout.name).first(where: {
            $0.name == key
        }) else {
            preconditionFailure("'\(key)' is not a fetched property of \(layout.name)")
        }
        var predicate = try FetchPredicate(format: property.predicate)
        var values: [String: PredicateArgument] = [:]
        for name in predicate.variableNames where name == "FETCH_SOURCE" || name.hasPrefix("FETCH_SOURCE.") {
            values[name] = try fetchSourceValue(
                keyPath: name.split(separator: ".").dropFirst().map(String.init), format: property.predicate)
        }
        predicate = predicate.substituting(values)
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: property.destinationEntity, predicate: predicate))
        state.fetchedProperties = (state.fetchedProperties ?? [:]).merging([key: ids]) { $1 }
        return ids
    }

    /// The value of `keyPath` from this object for a `$FETCH_SOURCE` substitution: the object itself when empty;
    /// an attribute's value; a to-one relationship's object; a to-many's objects as an array. Nil along the way
    /// gives nil.
    ///
    /// - Throws: ``FetchPredicateError`` `.unknownKeyPath` for a component that is not a property, or that does not
    ///   lead on (an attribute or to-many before the end).
    private func fetchSourceValue(keyPath: [String], format: String) throws -> PredicateArgument {
        var object: ManagedObject = self
        for (index, name) in keyPath.enumerated() {
            let isLast = index == keyPath.count - 1
            switch object.layout.slots[name] {
            case .attribute(let slot)? where isLast:
                return PredicateArgument(object.value(attributeSlot: slot))
            case .toOne?:
                guard let next = object.object(forKey: name) else { return .null }
                object = next
            case .toMany? where isLast:
                return .array(object.objectIDs(forKey: name).map { PredicateArgument.object($0) })
            default:
                throw FetchPredicateError(
                    code: .unknownKeyPath,
                    message: "$FETCH_SOURCE.\(keyPath.joined(separator: ".")): '\(name)' of \(object.layout.name) is "
                        + (isLast ? "not a property" : "not a to-one relationship, so the key path cannot go on"),
                    format: format)
            }
        }
        return .object(object.objectID)
    }
}
