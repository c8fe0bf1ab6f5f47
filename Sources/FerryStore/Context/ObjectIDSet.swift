/// A set of stored objects' IDs kept small enough to describe a batch request over millions of rows: per store and
/// entity, the primary keys as sorted runs of consecutive keys.
///
/// A batch update of every row of a table with keys 1…1,000,000 is one run of 16 bytes, not a million
/// ``ObjectID`` values; keys with gaps cost 16 bytes per run at worst. ``contains(_:)`` is one dictionary lookup and
/// a binary search over the runs of the ID's entity, so checking the objects a context holds against the set costs
/// in proportion to those objects, not to the rows the set covers.
///
/// ```swift
/// let result = try await store.execute(BatchUpdateRequest(entityName: "Product", propertiesToUpdate: changes))
/// result.changes.updatedObjectIDs.count         // 1_000_000
/// result.changes.updatedObjectIDs.contains(id)  // O(log runs)
/// ```
///
/// Temporary IDs are never members: a set describes rows in a store. Iterating gives every ID, grouped by store
/// and entity (in name order), each group by primary key.
public struct ObjectIDSet: Sendable, Hashable, Sequence {
    /// The objects of one entity in one store.
    struct Group: Sendable, Hashable, Comparable {
        var storeIdentifier: String
        var entityName: String

        static func < (left: Group, right: Group) -> Bool {
            (left.storeIdentifier, left.entityName) < (right.storeIdentifier, right.entityName)
        }
    }

    private var groups: [Group: KeyRuns]
    /// How many IDs the set holds.
    public private(set) var count: Int

    /// An empty set.
    public init() {
        groups = [:]
        count = 0
    }

    /// The permanent IDs among `ids` (temporary IDs are left out). Costs O(n log n) in the number of IDs.
    public init(_ ids: some Sequence<ObjectID>) {
        var groups: [Group: KeyRuns] = [:]
        for id in ids where !id.isTemporaryID {
            groups[Group(storeIdentifier: id.storeIdentifier, entityName: id.entityName), default: KeyRuns()]
                .append(id.primaryKey)
        }
        self.init(groups: groups)
    }

    /// A set of `groups`, whose runs are normalized here.
    init(groups: [Group: KeyRuns]) {
        var normalized: [Group: KeyRuns] = [:]
        var count = 0
        for (group, runs) in groups {
            var runs = runs
            runs.normalize()
            guard !runs.isEmpty else { continue }
            count += runs.count
            normalized[group] = runs
        }
        self.groups = normalized
        self.count = count
    }

    /// Whether the set holds no ID.
    public var isEmpty: Bool { count == 0 }

    /// Whether `id` is in the set: a dictionary lookup and a binary search over the runs of its entity.
    public func contains(_ id: ObjectID) -> Bool {
        guard !id.isTemporaryID,
            let runs = groups[Group(storeIdentifier: id.storeIdentifier, entityName: id.entityName)]
        else { return false }
        return runs.contains(id.primaryKey)
    }

    /// How many runs of consecutive keys the set keeps (its size is 16 bytes per run), for diagnostics.
    public var runCount: Int { groups.values.reduce(0) { $0 + $1.runCount } }

    /// Iterates the IDs, grouped by store and entity in name order, each group by primary key.
    public func makeIterator() -> Iterator {
        Iterator(groups: groups.sorted { $0.key < $1.key })
    }

    /// Iterates an ``ObjectIDSet``.
    public struct Iterator: IteratorProtocol {
        private let groups: [(key: Group, value: KeyRuns)]
        /// Each group's entity and store as object IDs hold them, looked up once per group rather than per ID.
        private let names: [(entity: ObjectIDName, store: ObjectIDName)]
        private var group = 0
        private var run = 0
        private var nextKey: Int64?

        init(groups: [(key: Group, value: KeyRuns)]) {
            self.groups = groups
            names = groups.map { (ObjectIDName($0.key.entityName), ObjectIDName($0.key.storeIdentifier)) }
        }

        /// The next ID, or `nil` at the end.
        public mutating func next() -> ObjectID? {
            while group < groups.count {
                let runs = groups[group].value
                if run < runs.runCount {
                    let range = runs.run(run)
                    let primaryKey = nextKey ?? range.lowerBound
                    if primaryKey < range.upperBound {
                        nextKey = primaryKey + 1
                    } else {
                        nextKey = nil
                        run += 1
                    }
                    return ObjectID(entity: names[group].entity, primaryKey: primaryKey, store: names[group].store)
                }
                group += 1
                run = 0
            }
            return nil
        }
    }
}

/// Primary keys as runs of consecutive keys. Appending keys in increasing order extends the last run or starts a
/// new one in O(1); keys out of order are kept as they come and sorted and merged by ``normalize()``, which must
/// run before ``contains(_:)``.
struct KeyRuns: Sendable, Hashable {
    private var starts: [Int64] = []
    private var ends: [Int64] = []
    private var isNormalized = true

    var isEmpty: Bool { starts.isEmpty }
    var runCount: Int { starts.count }

    /// How many keys the runs hold; meaningful once normalized.
    var count: Int {
        var total = 0
        for index in starts.indices { total += Int(ends[index] - starts[index]) + 1 }
        return total
    }

    /// The `index`th run.
    func run(_ index: Int) -> ClosedRange<Int64> { starts[index]...ends[index] }

    mutating func append(_ key: Int64) {
        guard let last = ends.last, let first = starts.last else {
            starts.append(key)
            ends.append(key)
            return
        }
        if last < Int64.max && key == last + 1 {
            ends[ends.count - 1] = key
        } else if key > last {
            starts.append(key)
            ends.append(key)
        } else if key < first {
            isNormalized = false
            starts.append(key)
            ends.append(key)
        }
        // Otherwise the key is inside the last run already.
    }

    /// Sorts the runs and merges those that overlap or touch.
    mutating func normalize() {
        guard !isNormalized else { return }
        let order = starts.indices.sorted { starts[$0] < starts[$1] }
        var mergedStarts: [Int64] = []
        var mergedEnds: [Int64] = []
        mergedStarts.reserveCapacity(order.count)
        mergedEnds.reserveCapacity(order.count)
        for index in order {
            let (start, end) = (starts[index], ends[index])
            if let last = mergedEnds.last, start <= last || (last < Int64.max && start == last + 1) {
                mergedEnds[mergedEnds.count - 1] = max(last, end)
            } else {
                mergedStarts.append(start)
                mergedEnds.append(end)
            }
        }
        starts = mergedStarts
        ends = mergedEnds
        isNormalized = true
    }

    /// Whether `key` is in a run: a binary search for the last run starting at or before it.
    func contains(_ key: Int64) -> Bool {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= key { low = middle + 1 } else { high = middle }
        }
        return low > 0 && key <= ends[low - 1]
    }
}

/// Collects the rows a batch request touched, as its SQL returns them (primary key and `_ent`), into an
/// ``ObjectIDSet`` without making an ``ObjectID`` per row.
struct ObjectIDSetBuilder {
    let storeIdentifier: String
    let entityNames: [Int: String]
    private var runs: [Int: KeyRuns] = [:]

    init(storeIdentifier: String, entityNames: [Int: String]) {
        self.storeIdentifier = storeIdentifier
        self.entityNames = entityNames
    }

    /// Adds the row `primaryKey` of the entity numbered `ent`.
    mutating func append(_ primaryKey: Int64, ent: Int) {
        runs[ent, default: KeyRuns()].append(primaryKey)
    }

    /// The set of the rows added so far.
    func build() -> ObjectIDSet {
        var groups: [ObjectIDSet.Group: KeyRuns] = [:]
        for (ent, keys) in runs {
            guard let name = entityNames[ent] else { continue }
            groups[ObjectIDSet.Group(storeIdentifier: storeIdentifier, entityName: name)] = keys
        }
        return ObjectIDSet(groups: groups)
    }
}
