package import FerrySQLite

/// Rows to insert into one entity's table in a single SQL transaction, without managed objects, validation rules
/// or callbacks (Core Data's `NSBatchInsertRequest`).
///
/// Three sources of rows:
///
/// ```swift
/// // Dictionaries, keyed by attribute name; a key with a nil value stores NULL.
/// let request = BatchInsertRequest(entityName: "Product", objects: [["sku": .string("A1"), "price": nil]])
///
/// // A handler that fills one row per call and returns true when there are no more (the row filled in that
/// // last call is discarded), so memory stays bounded.
/// let streamed = BatchInsertRequest(entityName: "Product") { row in
///     guard let next = source.next() else { return true }
///     row["sku"] = .string(next.sku)
///     return false
/// }
///
/// // Positional rows: one prepared statement, bound row by row (``PackedRows`` skips the value objects too).
/// let positional = BatchInsertRequest(
///     entityName: "Product", columns: ["sku", "price"], rows: [[.string("A1"), .decimal(9.5)]])
/// ```
///
/// Only attributes can be set (not relationships, not derived attributes), except that packed rows may set a to-one
/// relationship by its destination's primary key (the importer's natural-key resolution). An attribute a row leaves out gets
/// the model's default value (or NULL) when the row is inserted; see ``PersistentStore/execute(_:mergePolicy:)``
/// for rows that collide with stored ones.
public struct BatchInsertRequest: Sendable {
    /// What the result reports (Core Data's `NSBatchInsertRequestResultType`; the raw values are Core Data's).
    public enum ResultType: Int, Sendable, Hashable {
        /// Whether the request succeeded (Core Data's default).
        case statusOnly = 0
        /// The object IDs of the rows inserted or updated.
        case objectIDs = 1
        /// How many rows were inserted or updated.
        case count = 2
    }

    /// Where the rows come from.
    public enum Source: Sendable {
        /// One dictionary per row, keyed by attribute name. A key with a nil value stores NULL; a missing key takes
        /// the model's default on insert and leaves the stored value alone on an upsert.
        case objects([[String: AttributeValue?]])
        /// A handler called repeatedly with an empty dictionary to fill for one row. Returning `false` keeps the
        /// row and asks for another; returning `true` means "stop" and **discards the row filled in that call**
        /// (Core Data leaves this open). The handler runs on the store's writer queue, inside the transaction.
        case dictionaryHandler(@Sendable (inout [String: AttributeValue?]) -> Bool)
        /// Positional rows: `rows[i][j]` is the value of attribute `columns[j]`. Every row must have
        /// `columns.count` values. A nil value stores NULL.
        case rows(columns: [String], rows: [[AttributeValue?]])
        /// Rows already in their stored form (see ``PackedRows``): the importer's path, with no value object per
        /// field. Rows sorted by their uniqueness key (``PackedRows/orderByKey(_:)``) write fastest: the index, and
        /// on an upsert the table, are then walked once rather than at one random page per row.
        case packed(PackedRows)
    }

    /// The entity inserted into (its own name; a sub-entity's rows get the sub-entity's `_ent`).
    public var entityName: String
    /// Where the rows come from.
    public var source: Source
    /// What the result reports.
    public var resultType: ResultType
    /// Recorded as the author of the request's persistent-history transaction, when the store records history
    /// (``PersistentStoreDescription/recordsHistory``); Core Data takes the executing context's `transactionAuthor`.
    public var transactionAuthor: String? = nil
    /// Packed rows only: a row that would be new but leaves a non-optional attribute without default empty is
    /// skipped and listed in the result's `refusedRows`, instead of failing the request (the importer rejects
    /// such records one by one). Rows whose key is stored are updated as usual.
    package var refusesIncompleteNewRows = false
    /// Packed rows only: a row ignored because its key is stored (store-trump, rollback) is compared with the stored
    /// row, and counted in the result's `keptCount` when a value it gives differs (the importer tells "kept" from
    /// "unchanged" records). One probe by key per ignored row; rows inserted cost nothing more.
    package var countsKeptRows = false
    /// Runs in the request's transaction after its rows, with what they did (see ``TransactionCompanion``).
    package var companion: (@Sendable (Connection, BatchInsertResult) throws -> Void)? = nil

    /// A request with rows from `source`.
    public init(entityName: String, source: Source, resultType: ResultType = .statusOnly) {
        self.entityName = entityName
        self.source = source
        self.resultType = resultType
    }

    /// A request inserting `objects`, one dictionary per row, keyed by attribute name.
    public init(entityName: String, objects: [[String: AttributeValue?]], resultType: ResultType = .statusOnly) {
        self.init(entityName: entityName, source: .objects(objects), resultType: resultType)
    }

    /// A request whose rows come from `dictionaryHandler`, called until it returns `true` (that call's row is
    /// discarded).
    public init(
        entityName: String, resultType: ResultType = .statusOnly,
        dictionaryHandler: @escaping @Sendable (inout [String: AttributeValue?]) -> Bool
    ) {
        self.init(entityName: entityName, source: .dictionaryHandler(dictionaryHandler), resultType: resultType)
    }

    /// A request inserting `packedRows`, whose cells are already in their stored form.
    public init(entityName: String, packedRows: PackedRows, resultType: ResultType = .statusOnly) {
        self.init(entityName: entityName, source: .packed(packedRows), resultType: resultType)
    }

    /// A request inserting positional `rows`, whose values follow `columns` (attribute names).
    public init(
        entityName: String, columns: [String], rows: [[AttributeValue?]], resultType: ResultType = .statusOnly
    ) {
        self.init(entityName: entityName, source: .rows(columns: columns, rows: rows), resultType: resultType)
    }
}
