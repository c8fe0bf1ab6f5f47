import FerrySQLite

/// Where an object with unsaved changes stands, for a fetch that includes pending changes.
enum PendingChangeKind {
    case inserted, updated, deleted
}

extension ManagedObjectContext {
    /// The IDs `request` matches once this context's unsaved changes, and those of its ancestors, are taken into
    /// account (Core Data's `includesPendingChanges`), in the request's order, within its limit and offset; nil when
    /// no object of the request's entities has unsaved changes (the store's answer then stands as it is).
    ///
    /// The store answers for the objects without unsaved changes; each object inserted or updated is tested in memory
    /// with ``PredicateEvaluator`` (and placed by the sort descriptors with ``PendingSortOrder``), each deleted one is
    /// left out.
    ///
    /// - Throws: as ``fetch(_:)``; ``FetchPredicateError`` `.unsupported` when the predicate needs what the in-memory
    ///   evaluation cannot do.
    func objectIDsIncludingPendingChanges(_ request: FetchRequest) throws -> [ObjectID]? {
        let changes = pendingChanges(for: request)
        guard !changes.isEmpty else { return nil }
        var storeRequest = request
        storeRequest.fetchLimit = 0
        storeRequest.fetchOffset = 0
        storeRequest.resultType = .managedObjectID
        let stored = try withFetchExecutor(storeRequest) { try $0.objectIDs(for: storeRequest) }
            .filter { changes[$0] == nil }
        let evaluator = request.predicate.map { PredicateEvaluator(predicate: $0, layouts: store.layouts) }
        var matched: [ManagedObject] = []
        for (id, kind) in changes where kind != .deleted {
            let object = object(with: id)
            object.willAccessValues()
            guard object.state.lifecycle != .deleted, object.state.lifecycle != .invalid else { continue }
            if try evaluator?.matches(object) ?? true { matched.append(object) }
        }
        let order = PendingSortOrder(descriptors: request.sortDescriptors, layouts: store.layouts)
        var ids = try order.merge(matched, into: stored, context: self)
        if request.fetchOffset > 0 { ids.removeFirst(min(request.fetchOffset, ids.count)) }
        if request.fetchLimit > 0, ids.count > request.fetchLimit { ids.removeLast(ids.count - request.fetchLimit) }
        return ids
    }

    /// The objects of `request`'s entities with unsaved changes here or in an ancestor, by ID; this context's own
    /// state of an object wins over its ancestors'.
    func pendingChanges(for request: FetchRequest) -> [ObjectID: PendingChangeKind] {
        let model = store.schema.model
        let entity = request.entityName
        let includesSubentities = request.includesSubentities
        var concerned: [String: Bool] = [:]
        func concerns(_ name: String) -> Bool {
            guard includesSubentities, name != entity else { return name == entity }
            if let known = concerned[name] { return known }
            let answer = model.ancestry(of: name).contains { $0.name == entity }
            concerned[name] = answer
            return answer
        }
        var changes = parent.map { parent in parent.performAndWait { parent.pendingChanges(for: request) } } ?? [:]
        for object in pending.values where concerns(object.layout.name) {
            switch object.state.lifecycle {
            case .inserted: changes[object.objectID] = .inserted
            case .updated: changes[object.objectID] = .updated
            case .deleted:
                // A deletion of an object inserted here drops it; the store never had it.
                changes[object.objectID] = .deleted
            case .clean, .invalid: continue
            }
        }
        return changes
    }
}

/// The order of a fetch's sort descriptors applied in memory, as the store's ORDER BY applies it: a missing value
/// first (ascending), decimals as numbers, `.caseInsensitive` strings folded then as they are, localized ones by the
/// store's collations (``SortCollations``) then as they are, ties by primary key;
/// objects not saved yet come after saved ones, in the order they were inserted.
struct PendingSortOrder {
    let descriptors: [FetchSortDescriptor]
    let layouts: ObjectLayouts

    /// `stored` (in the store's order) with `matched` placed among them, by binary search: by primary key (objects
    /// not saved last) without sort descriptors; by the descriptors otherwise, each stored object met being read to
    /// compare.
    func merge(_ matched: [ManagedObject], into stored: [ObjectID], context: ManagedObjectContext) throws
        -> [ObjectID]
    {
        let sorted = matched.sorted { precedes(key(of: $0), $0, key(of: $1), $1) }
        var result = stored
        var lower = 0
        for object in sorted {
            let objectKey = key(of: object)
            // Binary search for the first stored object that comes after this one; later matches go after it.
            var (low, high) = (lower, result.count)
            while low < high {
                let middle = (low + high) / 2
                let other = context.object(with: result[middle])
                if precedes(objectKey, object, key(of: other), other) { high = middle } else { low = middle + 1 }
            }
            result.insert(object.objectID, at: low)
            lower = low + 1
        }
        return result
    }

    /// The values `object` sorts by: per descriptor, the value the store orders by first, and (for a
    /// case-insensitive string) the value it orders ties by.
    private func key(of object: ManagedObject) -> [(SQLiteValue?, SQLiteValue?)] {
        descriptors.map { descriptor in
            let (value, isString) = sortValue(descriptor.key, of: object)
            guard descriptor.comparison != .standard, isString, case .text(let text)? = value else {
                return (value, nil)
            }
            // A localized comparison compares the text itself (see `precedes`), then its scalars for ties.
            guard descriptor.comparison == .caseInsensitive else { return (value, value) }
            return (.text(PredicateSQLFunctions.fold(text, .caseInsensitive)), value)
        }
    }

    /// The value of the attribute `keyPath` leads to (through to-one relationships), in the store's encoding, and
    /// whether it is a string attribute.
    private func sortValue(_ keyPath: String, of object: ManagedObject) -> (SQLiteValue?, Bool) {
        var current: ManagedObject? = object
        for name in keyPath.split(separator: ".").map(String.init) {
            guard let object = current else { return (nil, false) }
            switch object.layout.slots[name] {
            case .attribute(let slot)?:
                let type = object.layout.attributes[slot].type
                let kind = PredicateOperand.ValueKind.attribute(type)
                return (object.value(forKey: name).flatMap(kind.encode), type == .string)
            case .toOne?:
                current = object.object(forKey: name)
            case .toMany?, nil:
                return (nil, false)
            }
        }
        return (nil, false)
    }

    private func precedes(
        _ lhs: [(SQLiteValue?, SQLiteValue?)], _ left: ManagedObject, _ rhs: [(SQLiteValue?, SQLiteValue?)],
        _ right: ManagedObject
    ) -> Bool {
        for (index, descriptor) in descriptors.enumerated() {
            var order: Int
            if SortCollations.name(for: descriptor.comparison) != nil, case .text(let left)? = lhs[index].0,
                case .text(let right)? = rhs[index].0
            {
                order = SortCollations.compare(left, right, descriptor.comparison)
            } else {
                order = Self.order(lhs[index].0, rhs[index].0)
            }
            if order == 0 { order = Self.order(lhs[index].1, rhs[index].1) }
            if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
        }
        switch (left.objectID.isTemporaryID, right.objectID.isTemporaryID) {
        case (false, false): return left.objectID.primaryKey < right.objectID.primaryKey
        case (false, true): return true
        case (true, false): return false
        case (true, true): return left.state.insertionIndex < right.state.insertionIndex
        }
    }

    /// A missing value before any value, then SQLite's order.
    private static func order(_ lhs: SQLiteValue?, _ rhs: SQLiteValue?) -> Int {
        switch (lhs, rhs) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let lhs?, let rhs?): return PredicateEvaluator.order(lhs, rhs)
        }
    }
}
