/// New values for some attributes of every object of an entity that a predicate matches, written in one SQL
/// UPDATE without managed objects, validation or callbacks (Core Data's `NSBatchUpdateRequest`).
///
/// ```swift
/// var request = BatchUpdateRequest(entityName: "Product")
/// request.predicate = try FetchPredicate(format: "category.name == %@", "Tea")
/// request.propertiesToUpdate = ["price": .keyPath("price") * 1.1, "updatedAt": .now]
/// request.resultType = .updatedObjectIDs
/// let result = try await store.execute(request)
/// ```
///
/// Every updated row's `_opt` goes up by one, so a context holding one of these objects with an older snapshot
/// meets an optimistic-locking conflict on its next save of it, unless it refreshes first. Values are written as
/// given: no validation (min/max, patterns, optionality) runs. A new value that collides with a uniqueness
/// constraint fails the whole request with ``StoreError/Code/constraintConflict``.
public struct BatchUpdateRequest: Sendable, Hashable {
    /// What the result reports (Core Data's `NSBatchUpdateRequestResultType`, with its raw values).
    public enum ResultType: Int, Sendable, Hashable {
        /// Whether the request succeeded (Core Data's default).
        case statusOnly = 0
        /// The IDs of the objects updated.
        case updatedObjectIDs = 1
        /// How many objects were updated.
        case updatedObjectsCount = 2
    }

    /// The entity updated.
    public var entityName: String
    /// Which objects to update; `nil` updates all of them.
    public var predicate: FetchPredicate?
    /// The new values, by stored attribute name (relationships and derived attributes cannot be set).
    public var propertiesToUpdate: [String: BatchUpdateExpression]
    /// Whether objects of the entity's sub-entities are updated too (Core Data's default: true).
    public var includesSubentities: Bool
    /// What the result reports.
    public var resultType: ResultType
    /// Recorded as the author of the request's persistent-history transaction, when the store records history
    /// (``PersistentStoreDescription/recordsHistory``); Core Data takes the executing context's `transactionAuthor`.
    public var transactionAuthor: String? = nil

    /// A request updating the objects of `entityName` that `predicate` matches (all of them when nil).
    public init(
        entityName: String, predicate: FetchPredicate? = nil,
        propertiesToUpdate: [String: BatchUpdateExpression] = [:], includesSubentities: Bool = true,
        resultType: ResultType = .statusOnly
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
        self.includesSubentities = includesSubentities
        self.resultType = resultType
    }
}
