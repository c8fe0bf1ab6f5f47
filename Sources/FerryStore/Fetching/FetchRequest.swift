/// A description of what to fetch from a store, as Core Data's `NSFetchRequest`: an entity, a predicate, an order,
/// a window (limit and offset) and the shape of the results.
///
/// ```swift
/// var request = FetchRequest(entityName: "Product")
/// request.predicate = try FetchPredicate(format: "price < %@", 10)
/// request.sortDescriptors = [FetchSortDescriptor(key: "category.name"), FetchSortDescriptor(key: "price")]
/// request.fetchLimit = 20
///
/// var totals = FetchRequest(entityName: "Product", resultType: .dictionary)
/// totals.propertiesToGroupBy = ["category.name"]
/// totals.aggregates = [FetchAggregate(name: "total", function: .sum, keyPath: "price")]
/// ```
///
/// A request is a value: it holds no connection and can be built anywhere, kept as a template and run later.
/// `query(in:)` turns it into SQL with bound values; `FetchExecutor` runs it.
public struct FetchRequest: Sendable, Hashable {
    /// What a fetch returns (Core Data's `NSFetchRequestResultType`, with its raw values).
    public enum ResultType: Int, Sendable, Hashable {
        /// Managed objects, from ``ManagedObjectContext/fetch(_:)->FetchedObjects``; run on a store directly, their
        /// object IDs.
        case managedObject = 0
        /// Object IDs only (``ObjectID``).
        case managedObjectID = 1
        /// One dictionary per row, keyed by key path or aggregate name; see ``FetchRequest/propertiesToFetch``.
        case dictionary = 2
        /// The number of objects the fetch would return.
        case count = 4
    }

    /// The entity fetched.
    public var entityName: String
    /// Which objects to fetch; `nil` fetches all of them.
    public var predicate: FetchPredicate?
    /// The order of the results, first descriptor first; the primary key always breaks remaining ties.
    public var sortDescriptors: [FetchSortDescriptor]
    /// The most results to return; 0 means no limit.
    public var fetchLimit: Int
    /// How many results to skip first.
    public var fetchOffset: Int
    /// The size of the batches a context loads objects in; 0 loads all at once. Stored for contexts: the SQL
    /// does not depend on it.
    public var fetchBatchSize: Int
    /// The shape of the results.
    public var resultType: ResultType
    /// For ``ResultType/dictionary``: the key paths to fetch, each an attribute of the entity (`name`) or one
    /// reached through to-one relationships (`category.name`), or a to-one relationship (`category`), whose value is
    /// the related object's ID as its URI (``ObjectID/init(uriRepresentation:)`` reads it back; a predicate takes it
    /// as it is, `category == %@`). `nil` fetches every stored attribute of the entity
    /// (inherited ones included, sub-entities' own ones not) — or, with aggregates, the group-by key paths.
    public var propertiesToFetch: [String]?
    /// Whether objects of the entity's sub-entities are fetched too.
    public var includesSubentities: Bool
    /// Whether a context's fetches and counts take its unsaved changes into account, and those of its ancestors for
    /// a child context (Core Data's `includesPendingChanges`, `true` by default): objects inserted and not saved are
    /// included when they match, objects updated are tested on their current values, objects deleted are left out.
    /// The store answers for every other object; the changed ones are tested in memory with the store's comparison
    /// rules, and placed by the sort descriptors.
    ///
    /// `false` asks the store alone (objects deleted in the context are still left out): the choice of importers
    /// that fetch while holding many unsaved objects. Dictionary results always come from the store alone, as in
    /// Core Data. Derived attributes of unsaved objects are not recomputed in memory (the store computes them at the
    /// save, as Core Data's does), so a predicate on one sees the value the object was loaded with.
    public var includesPendingChanges: Bool
    /// For managed objects: whether objects not yet in the context come back as faults (Core Data's default).
    /// Their rows are read with the fetch and kept by the context, so a fault fires without I/O, and
    /// `awakeFromFetch()` runs when it fires; with `false`, values are applied (and `awakeFromFetch()` called)
    /// at once.
    public var returnsObjectsAsFaults: Bool
    /// For managed objects: whether the fetch reads the objects' values (Core Data's `includesPropertyValues`,
    /// `true` by default). With `false` only their IDs are read: objects not yet in the context come back as faults
    /// with nothing cached, each reading its row when it fires (one query per object), and
    /// ``returnsObjectsAsFaults`` and ``relationshipKeyPathsForPrefetching`` are ignored. For a fetch meant to
    /// delete or relate objects without reading them.
    public var includesPropertyValues: Bool
    /// For managed objects: whether objects already loaded in the context take the values the fetch reads (Core
    /// Data's `shouldRefreshRefetchedObjects`, `false` by default). Objects without unsaved changes take the
    /// stored values; objects with unsaved changes are refreshed keeping their changes on top, as
    /// ``ManagedObjectContext/refresh(_:mergeChanges:)`` with `true`. With `false` they keep what they hold.
    public var shouldRefreshRefetchedObjects: Bool
    /// For managed objects: to-one key paths (`category`, `category.parent`) whose destinations are loaded with
    /// the fetch, one query per entity per step instead of one per object.
    public var relationshipKeyPathsForPrefetching: [String]
    /// For ``ResultType/dictionary``: whether equal dictionaries are returned once (`SELECT DISTINCT`).
    public var returnsDistinctResults: Bool
    /// For ``ResultType/dictionary``: aggregate values to fetch beside ``propertiesToFetch``, as Core Data's
    /// `NSExpressionDescription`s.
    public var aggregates: [FetchAggregate]
    /// For ``ResultType/dictionary``: the key paths whose equal values form one group (and one dictionary).
    /// Every fetched key path must be among them. A key path may end on a to-one relationship.
    public var propertiesToGroupBy: [String]
    /// For grouped dictionary fetches: which groups to return (SQL's `HAVING`), as Core Data's `havingPredicate`.
    /// Its key paths are the ``aggregates``' names (`total > 100`) and the ``propertiesToGroupBy`` key paths;
    /// aggregates compare as numbers.
    ///
    /// ```swift
    /// request.propertiesToGroupBy = ["category"]
    /// request.aggregates = [FetchAggregate(name: "total", function: .sum, keyPath: "price")]
    /// request.havingPredicate = try FetchPredicate(format: "total > 8 AND category != nil")
    /// ```
    public var havingPredicate: FetchPredicate?

    /// A request for every object of `entityName`, unsorted, as managed objects unless told otherwise.
    public init(
        entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = [],
        resultType: ResultType = .managedObject
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = 0
        self.fetchOffset = 0
        self.fetchBatchSize = 0
        self.resultType = resultType
        self.propertiesToFetch = nil
        self.includesSubentities = true
        self.includesPendingChanges = true
        self.returnsObjectsAsFaults = true
        self.includesPropertyValues = true
        self.shouldRefreshRefetchedObjects = false
        self.relationshipKeyPathsForPrefetching = []
        self.returnsDistinctResults = false
        self.aggregates = []
        self.propertiesToGroupBy = []
        self.havingPredicate = nil
    }
}

/// An aggregate value in a dictionary fetch, as a Core Data `NSExpressionDescription` whose expression is a
/// function over a key path: `sum:(price)` named `total`.
///
/// Over the rows of each group (or all matching rows without ``FetchRequest/propertiesToGroupBy``), nil values
/// are skipped, as SQL does. Results, by function and attribute type:
///
/// | function | integers | doubles, floats | decimals | dates, strings, others |
/// |---|---|---|---|---|
/// | ``Function/count`` | integer | integer | integer | integer |
/// | ``Function/sum`` | integer | double | exact decimal | not allowed |
/// | ``Function/average`` | double | double | decimal | not allowed |
/// | ``Function/min``, ``Function/max`` | integer | double | exact decimal | the attribute's type |
///
/// With no value to aggregate, `count` is 0 and the others nil.
public struct FetchAggregate: Sendable, Hashable {
    /// An aggregate function (Core Data's `count:`, `sum:`, `average:`, `min:`, `max:`).
    public enum Function: String, Sendable, Hashable, CaseIterable {
        /// How many values are not nil; with the key path `SELF`, how many objects.
        case count
        /// The sum of the values.
        case sum
        /// The mean of the values.
        case average
        /// The smallest value.
        case min
        /// The largest value.
        case max
    }

    /// The key of the result in each dictionary.
    public var name: String
    /// The function applied.
    public var function: Function
    /// The key path aggregated: an attribute (`price`), a to-one key path (`category.rank`), or `SELF` for
    /// ``Function/count``.
    public var keyPath: String

    /// `function` over `keyPath`, returned under `name`.
    public init(name: String, function: Function, keyPath: String) {
        self.name = name
        self.function = function
        self.keyPath = keyPath
    }
}
