import FerrySQLite
import Foundation

/// Runs one ``BatchInsertRequest`` on the writer connection, inside a transaction the caller opens.
///
/// Each distinct list of attributes a row gives is one INSERT *shape*, prepared once and bound row by row; the
/// defaults of the attributes a shape leaves out are bound once, when it is prepared (bindings survive a reset).
/// An upsert ends with `RETURNING _pk, _opt, _ent`: `_opt` is 1 for a new row and above 1 for a row it updated, and
/// a row it left alone returns nothing. A plain or insert-or-ignore INSERT has no RETURNING (SQLite runs one
/// through an ephemeral table per execution): `changes` tells whether the row went in, and its key is the one the
/// inserter bound (or SQLite's last rowid). So the counts, object IDs and the result's
/// ``BatchInsertResult/changes`` come without a SELECT per row.
///
/// Conflict handling comes from ``MergePolicy/batchInsertConflictAction``:
/// - `.fail`: a plain INSERT; a collision (with a stored row or an earlier row of the request) fails the request.
/// - `.ignore`: `ON CONFLICT DO NOTHING`; the first row with a key wins.
/// - `.update`: one `ON CONFLICT (<constraint>) DO UPDATE SET <given columns>, _opt = _opt + 1` per uniqueness
///   constraint; the last row with a key wins, and only the attributes the row gives change.
struct BatchInserter {
    /// One prepared INSERT: the attributes a row gives, in parameter order, and the mandatory ones it leaves out.
    ///
    /// A class: every row of a batch takes its shape, and a struct of nine references was copied (retained and
    /// released field by field) for each row.
    final class Shape {
        let statement: Statement
        /// The given attributes' names, types and optionality, in parameter order (kept apart so binding a row
        /// copies no ``AttributeDescription``).
        let names: [String]
        let types: [AttributeType]
        let optional: [Bool]
        /// Whether each given attribute allows external storage.
        let external: [Bool]
        /// Non-optional attributes without default that the shape leaves out: a *new* row of this shape is refused.
        let omittedMandatory: [String]
        /// The parameter of `_pk`, when the inserter chooses primary keys (see ``BatchInserter/nextPrimaryKey``).
        let primaryKeyParameter: Int?
        /// The given attributes as persistent history lists an upsert's updated properties.
        let historyProperties: String
        /// For an upsert without RETURNING: finds an updated row's key by its uniqueness constraint.
        let keyProbe: KeyProbe?

        init(
            statement: Statement, names: [String], types: [AttributeType], optional: [Bool], external: [Bool],
            omittedMandatory: [String], primaryKeyParameter: Int?, historyProperties: String, keyProbe: KeyProbe?
        ) {
            self.statement = statement
            self.names = names
            self.types = types
            self.optional = optional
            self.external = external
            self.omittedMandatory = omittedMandatory
            self.primaryKeyParameter = primaryKeyParameter
            self.historyProperties = historyProperties
            self.keyProbe = keyProbe
        }

        /// A prepared `SELECT _pk[, _ent] … WHERE <key> = ?…` and, for each key attribute, its offset in `names`.
        struct KeyProbe {
            let statement: Statement
            let offsets: [Int]
            /// The `_ent` of every row of a table that holds one entity (the probe then selects `_pk` alone);
            /// `nil` when the probe reads `_ent`.
            let entityID: Int?
        }
    }

    let connection: Connection
    let schema: StoreSchema
    let mapping: StoreSchema.EntityMapping
    let action: MergePolicy.BatchInsertConflictAction
    /// `("a", "b") [WHERE "_ent" IN (…)]` for each uniqueness constraint, for the upsert's conflict clauses, with
    /// the constraint's attributes.
    let conflictTargets: [(sql: String, columns: [String])]
    let storeIdentifier: String
    let collectsObjectIDs: Bool
    /// Records the rows inserted or updated, when the store records history.
    var history: HistoryRecorder?
    /// Writes the files of large values of attributes that allow external storage (the same
    /// decision as a save); `nil` when no value can go to a file.
    var blobs: BlobWriter?
    /// The first key the inserter chose, when it chooses keys: the new rows are then exactly the keys from here to
    /// ``nextPrimaryKey``, which history records in one statement.
    private let firstPrimaryKey: Int64?
    /// The key the next new row gets, or nil to let SQLite choose (one above the table's largest). A store whose
    /// contexts reserve keys before saving passes the first key above every reservation, so a batch insert never
    /// takes a key a context holds; keys are consumed only by rows actually inserted, so upserts leave no gaps.
    private(set) var nextPrimaryKey: Int64?
    /// Prepared shapes by the attribute names they give, in order (see `BatchInserter+Shapes.swift`).
    var shapes: [[String]: Shape] = [:]
    /// Shapes whose statement is an UPDATE by primary key, by the attribute names their rows give (see
    /// `BatchInserter+TableOrder.swift`).
    var updateShapes: [[String]: Shape] = [:]
    /// Packed rows skipped because they would be new without a mandatory value (see
    /// `BatchInsertRequest.refusesIncompleteNewRows`); nil when such rows fail the request.
    var refusedRows: [RefusedRow]?
    private var insertedCount = 0
    private var updatedCount = 0
    /// Packed rows only: whether an ignored row (``MergePolicy/BatchInsertConflictAction/ignore``) is compared with
    /// the stored row of its key, to count it in ``keptCount`` when they differ (see `BatchInserter+Kept.swift`).
    var countsKeptRows = false
    /// Ignored rows whose stored row holds different values (see ``countsKeptRows``).
    var keptCount = 0
    /// Whether the last row written by ``write(_:bindKey:)`` was ignored (its key was stored; nothing changed).
    var lastRowWasIgnored = false
    /// The prepared probes that tell an ignored row from its stored row, by the attribute names the rows give.
    var keptProbes: [[String]: KeptProbe] = [:]
    /// The packed rows the INSERT ignored, when ``countsKeptRows``: compared once every row is written.
    var ignoredRows: [Int] = []
    /// The prepared probes that list the attributes an upsert changes, by the attribute names the rows give (see
    /// `BatchInserter+HistoryChanges.swift`).
    var changesProbes: [[String]: (shape: Shape, compared: [String])] = [:]
    /// The properties history records for the next row an upsert updates, when known before it is written (only
    /// those that change); `nil` records every attribute the row gives.
    var pendingHistoryProperties: String?
    private var objectIDs: [ObjectID] = []
    /// Makes the listed object IDs (see ``collectsObjectIDs``), the store's name looked up once.
    private var objectIDMaker: ObjectIDMaker
    private var seenPrimaryKeys: Set<Int64> = []
    /// The rows written, for the result's ``BatchInsertResult/changes``.
    private var insertedKeys: ObjectIDSetBuilder
    private var updatedKeys: ObjectIDSetBuilder
    /// The number of the row being written, from 1, for messages.
    var rowNumber = 0

    /// An inserter for `request` under `policy`.
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` for an unknown or abstract entity, `.unsupportedRequest` for
    ///   ``MergePolicy/overwrite``.
    init(
        connection: Connection, schema: StoreSchema, storeIdentifier: String, request: BatchInsertRequest,
        policy: MergePolicy, firstPrimaryKey: ((_ table: String) throws -> Int64)? = nil
    ) throws {
        guard let mapping = schema.mapping(for: request.entityName),
            let entity = schema.model.entity(named: request.entityName)
        else {
            throw StoreError(.invalidBatchRequest, "batch insert: the model has no entity '\(request.entityName)'")
        }
        guard !entity.isAbstract else {
            throw StoreError(
                .invalidBatchRequest,
                "batch insert into \(entity.name): the entity is abstract; insert into one of its sub-entities")
        }
        let action = policy.batchInsertConflictAction
        guard action != .unsupported else {
            throw StoreError(
                .unsupportedRequest,
                "batch insert into \(entity.name): the \(policy) merge policy is unsupported for batch insert (it "
                    + "would delete stored rows that other rows may refer to); use mergeByPropertyObjectTrump")
        }
        self.connection = connection
        self.schema = schema
        self.mapping = mapping
        self.action = action
        self.storeIdentifier = storeIdentifier
        self.objectIDMaker = ObjectIDMaker(storeIdentifier: storeIdentifier)
        self.collectsObjectIDs = request.resultType == .objectIDs
        self.conflictTargets = action == .update ? Self.conflictTargets(of: entity.name, in: schema) : []
        self.insertedKeys = ObjectIDSetBuilder(storeIdentifier: storeIdentifier, entityNames: schema.entityNames)
        self.updatedKeys = insertedKeys
        self.nextPrimaryKey = try firstPrimaryKey?(mapping.table)
        self.firstPrimaryKey = nextPrimaryKey
    }

    /// Every uniqueness constraint that applies to `entity` (inherited ones first) as a conflict target. A
    /// constraint declared on a sub-entity is a partial index, so its target repeats the index's `WHERE`.
    static func conflictTargets(of entity: String, in schema: StoreSchema) -> [(sql: String, columns: [String])] {
        schema.model.ancestry(of: entity).flatMap { declaring -> [(sql: String, columns: [String])] in
            declaring.uniquenessConstraints.map { columns in
                var sql = "(" + columns.map(SQL.identifier).joined(separator: ", ") + ")"
                if let declaringMapping = schema.mapping(for: declaring.name), declaringMapping.table != declaring.name
                {
                    let ids = declaringMapping.hierarchyIDs.map(String.init).joined(separator: ", ")
                    sql += " WHERE \(SQL.identifier("_ent")) IN (\(ids))"
                }
                return (sql, columns)
            }
        }
    }

    // MARK: Running

    /// Checks the attribute names of `source` (all of them, for the sources that are not streamed), so a request
    /// that names an unknown attribute fails before any row is written.
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest`.
    func validateNames(of source: BatchInsertRequest.Source) throws {
        switch source {
        case .objects(let objects):
            var names: Set<String> = []
            for object in objects { names.formUnion(object.keys) }
            for name in names.sorted() { _ = try attribute(named: name) }
        case .rows(let columns, _):
            try validateColumns(columns)
        case .packed(let rows):
            try validateColumns(rows.columns, settingForeignKeys: true)
        case .dictionaryHandler:
            break
        }
    }

    private func validateColumns(_ columns: [String], settingForeignKeys: Bool = false) throws {
        guard Set(columns).count == columns.count else {
            throw StoreError(.invalidBatchRequest, "batch insert into \(mapping.entity): a column is named twice")
        }
        for name in columns {
            _ = try settingForeignKeys ? settableColumn(named: name) : attribute(named: name)
        }
    }

    /// Inserts every row of `source` and returns the result `resultType` asks for.
    ///
    /// - Throws: ``StoreError``; SQLite errors pass through for the caller to map.
    mutating func insert(
        _ source: BatchInsertRequest.Source, resultType: BatchInsertRequest.ResultType
    ) throws -> BatchInsertResult {
        switch source {
        case .objects(let objects):
            for object in objects { try insert(object) }
        case .dictionaryHandler(let handler):
            var row: [String: AttributeValue?] = [:]
            while true {
                row.removeAll(keepingCapacity: true)
                // `true` means "stop": the row filled in this call is discarded (Core Data leaves this open).
                if handler(&row) { break }
                try insert(row)
            }
        case .rows(let columns, let rows):
            try insert(columns: columns, rows: rows)
        case .packed(let rows):
            try insert(packed: rows)
        }
        if let history, let first = firstPrimaryKey, let next = nextPrimaryKey {
            try history.recordInserts(inTable: mapping.table, primaryKeys: first..<next)
        }
        let result: BatchInsertResult.Result =
            switch resultType {
            case .statusOnly: .status(true)
            case .count: .count(insertedCount + updatedCount)
            case .objectIDs: .objectIDs(objectIDs)
            }
        var outcome = BatchInsertResult(
            result: result, insertedCount: insertedCount, updatedCount: updatedCount,
            changes: RemoteChanges(
                inserted: insertedKeys.build(), updated: updatedKeys.build(), deleted: ObjectIDSet()))
        outcome.refusedRows = refusedRows ?? []
        outcome.keptCount = keptCount
        return outcome
    }

    private mutating func insert(_ object: [String: AttributeValue?]) throws {
        rowNumber += 1
        // Sorted, so rows that give the same attributes in any order share one prepared statement.
        let shape = try shape(for: object.keys.sorted())
        for (offset, name) in shape.names.enumerated() {
            guard let value = object[name] else { continue }
            try bind(value, in: shape, at: offset)
        }
        try write(shape) { probe, offsets in
            for (parameter, offset) in offsets.enumerated() {
                try probe.bind(object[shape.names[offset]] ?? nil, as: shape.types[offset], at: parameter + 1)
            }
        }
    }

    /// The hot path: one shape for every row, values bound straight from the caller's arrays.
    private mutating func insert(columns: [String], rows: [[AttributeValue?]]) throws {
        let shape = try shape(for: columns)
        for row in rows {
            rowNumber += 1
            guard row.count == columns.count else {
                throw StoreError(
                    .invalidBatchRequest,
                    "batch insert into \(mapping.entity): row \(rowNumber) has \(row.count) values for "
                        + "\(columns.count) columns")
            }
            for offset in row.indices {
                try bind(row[offset], in: shape, at: offset)
            }
            try write(shape) { probe, offsets in
                for (parameter, offset) in offsets.enumerated() {
                    try probe.bind(row[offset], as: shape.types[offset], at: parameter + 1)
                }
            }
        }
    }

    /// Steps the bound INSERT of one row and counts what it did.
    ///
    /// `bindKey` binds the row's key values to a shape's ``Shape/KeyProbe`` (its parameters 1…, from the row's
    /// values at the probe's offsets); a shape with a probe needs it.
    mutating func write(_ shape: Shape, bindKey: ((Statement, [Int]) throws -> Void)? = nil) throws {
        let statement = shape.statement
        defer { statement.reset() }
        if let parameter = shape.primaryKeyParameter, let key = nextPrimaryKey {
            try statement.bind(key, at: parameter)
        }
        if let probe = shape.keyProbe, let bindKey {
            // Keys start at 1: a last rowid still 0 after the step means the upsert updated (or left) a row.
            connection.lastInsertRowID = 0
            _ = try statement.step()
            // No change: an upsert whose values were already stored.
            guard connection.changes == 1 else { return }
            if connection.lastInsertRowID != 0 {
                return try count(
                    primaryKey: nextPrimaryKey ?? connection.lastInsertRowID, version: 1, ent: mapping.entityID, shape)
            }
            let select = probe.statement
            defer { select.reset() }
            try bindKey(select, probe.offsets)
            guard try select.step() else { return }
            let ent = probe.entityID ?? Int(select.int64(at: 1))
            return try count(primaryKey: select.int64(at: 0), version: 2, ent: ent, shape)
        }
        guard action == .update else {
            // Without RETURNING (which SQLite runs through an ephemeral table per execution): a new row's key is
            // the one bound here or SQLite's last rowid; an ignored row changes nothing.
            _ = try statement.step()
            lastRowWasIgnored = connection.changes != 1
            guard !lastRowWasIgnored else { return }
            try count(
                primaryKey: nextPrimaryKey ?? connection.lastInsertRowID, version: 1, ent: mapping.entityID, shape)
            return
        }
        while try statement.step() {
            try count(
                primaryKey: statement.int64(at: 0), version: statement.int64(at: 1), ent: Int(statement.int64(at: 2)),
                shape)
        }
    }

    /// Counts one row the INSERT wrote: new (`version` 1) or updated by the upsert.
    mutating func count(primaryKey: Int64, version: Int64, ent: Int, _ shape: Shape) throws {
        if version == 1 {
            if let key = nextPrimaryKey, primaryKey == key { nextPrimaryKey = key + 1 }
            if let missing = shape.omittedMandatory.first {
                throw StoreError(
                    .missingMandatoryProperty,
                    "batch insert into \(mapping.entity): row \(rowNumber) gives no value for the non-optional "
                        + "attribute '\(missing)', which has no default")
            }
            insertedCount += 1
            insertedKeys.append(primaryKey, ent: ent)
        } else {
            updatedCount += 1
            updatedKeys.append(primaryKey, ent: ent)
        }
        if let history {
            if version == 1 {
                // With keys chosen here, the new rows are recorded together at the end.
                if firstPrimaryKey == nil { try history.recordInsert(ent: ent, primaryKey: primaryKey) }
            } else {
                try history.recordUpdate(
                    ent: ent, primaryKey: primaryKey, properties: pendingHistoryProperties ?? shape.historyProperties)
            }
        }
        if collectsObjectIDs && seenPrimaryKeys.insert(primaryKey).inserted {
            let entity = schema.entityNames[ent] ?? mapping.entity
            objectIDs.append(objectIDMaker.id(entityName: entity, primaryKey: primaryKey))
        }
    }
}
