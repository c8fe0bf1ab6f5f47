import FerrySQLite
import Foundation

/// Runs one ``BatchUpdateRequest`` on the writer connection, inside a transaction the caller opens, as one
/// statement:
///
/// ```sql
/// UPDATE "Product" SET "price" = ferry_decimal('*', "price", ?), "_opt" = "_opt" + 1
/// WHERE "_pk" IN (SELECT "t0"."_pk" FROM "Product" AS "t0" LEFT JOIN … WHERE …)
/// RETURNING "_pk", "_ent"
/// ```
///
/// The subquery is the predicate compiled by ``FetchPredicate/sql(for:in:includesSubentities:)``, as fetches use
/// it (with its joins and `_ent` test); the SET clause comes from ``BatchUpdateCompiler``. Every value is bound. The
/// keys RETURNING gives become the result's ``BatchUpdateResult/changes``, whatever the result type.
///
/// Only rows the update changes are touched: the WHERE clause adds `AND ("a" IS NOT <new a> OR …)`, so a row that
/// already holds every new value is not counted, versioned, recorded in history or exported incrementally. Before
/// anything is written, the new values of attributes with rules (non-optional, bounds, lengths, a pattern, a
/// narrow integer type, a decimal's precision) are checked against the model; a value that breaks one throws its
/// ``ValidationError``.
struct BatchUpdater {
    let connection: Connection
    let schema: StoreSchema
    let storeIdentifier: String
    /// Records the updated rows, when the store records history.
    var history: HistoryRecorder? = nil
    /// Writes the file of a large constant for an attribute that allows external storage; `nil` when no value can
    /// go to a file.
    var blobs: BlobWriter? = nil

    /// Updates the objects `request` matches and returns what its result type asks for.
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` for a request that does not fit the model,
    ///   ``FetchPredicateError`` from the predicate; SQLite errors pass through for the caller to map.
    func update(_ request: BatchUpdateRequest) throws -> BatchUpdateResult {
        let entity = request.entityName
        guard let mapping = schema.mapping(for: entity) else {
            throw StoreError(.invalidBatchRequest, "batch update: the model has no entity '\(entity)'")
        }
        guard !request.propertiesToUpdate.isEmpty else {
            throw StoreError(.invalidBatchRequest, "batch update of \(entity): propertiesToUpdate is empty")
        }
        let compiler = BatchUpdateCompiler(
            mapping: mapping, model: schema.model, now: Date().timeIntervalSince1970)
        var assignments: [String] = []
        var bindings: [SQLiteValue] = []
        var differences: [String] = []
        var differenceBindings: [SQLiteValue] = []
        var newValues: [(attribute: AttributeDescription, value: BatchUpdateCompiler.Compiled)] = []
        // Sorted, so the same request always gives the same SQL text.
        for name in request.propertiesToUpdate.keys.sorted() {
            guard let expression = request.propertiesToUpdate[name] else { continue }
            var compiled = try compiler.assignment(to: name, expression)
            if let blobs, case .constant(.binary(let data)?) = expression, blobs.externalizes(data.count),
                mapping.attributes.first(where: { $0.name == name })?.allowsExternalStorage == true
            {
                // The same decision as a save: the constant's file is written now, and every matching row refers to it.
                compiled.bindings = [.text(try data.withUnsafeBytes { try blobs.store($0) }.storedText)]
            }
            assignments.append(SQL.identifier(name) + " = " + compiled.sql)
            bindings += compiled.bindings
            differences.append(SQL.identifier(name) + " IS NOT " + compiled.sql)
            differenceBindings += compiled.bindings
            if let attribute = mapping.attributes.first(where: { $0.name == name }) {
                newValues.append((attribute, compiled))
            }
        }
        let version = SQL.identifier("_opt")
        assignments.append("\(version) = \(version) + 1")
        let matching = try (request.predicate ?? .truePredicate).sql(
            for: entity, in: schema, includesSubentities: request.includesSubentities)
        let primaryKey = SQL.identifier("_pk")
        // The rows matched whose values the update changes; `IS NOT` treats NULL as a value.
        let changedRows =
            "\(primaryKey) IN (\(matching.selectStatement(columns: ["_pk"]))) "
            + "AND (\(differences.joined(separator: " OR ")))"
        let changedBindings = matching.bindings + differenceBindings
        let sql =
            "UPDATE \(SQL.identifier(mapping.table)) SET \(assignments.joined(separator: ", ")) "
            + "WHERE \(changedRows) RETURNING \(primaryKey), \(SQL.identifier("_ent"))"

        try FetchPredicate.registerSQLFunctions(on: connection)
        try BatchSQLFunctions.register(on: connection)
        try checkRules(of: newValues, inRowsWhere: changedRows, changedBindings, mapping: mapping)
        // History first, in one INSERT … SELECT with the same condition: the rows it selects are the rows updated.
        try history?.recordUpdates(
            inTable: mapping.table, where: changedRows, changedBindings,
            properties: HistoryRecorder.propertyList(request.propertiesToUpdate.keys))
        let statement = try connection.prepare(sql)
        try statement.bind(bindings + changedBindings)
        defer { statement.reset() }
        let collectsObjectIDs = request.resultType == .updatedObjectIDs
        var count = 0
        var objectIDs: [ObjectID] = []
        var updated = ObjectIDSetBuilder(storeIdentifier: storeIdentifier, entityNames: schema.entityNames)
        var ids = ObjectIDMaker(storeIdentifier: storeIdentifier)
        while try statement.step() {
            count += 1
            updated.append(statement.int64(at: 0), ent: Int(statement.int64(at: 1)))
            guard collectsObjectIDs else { continue }
            let entityName = schema.entityNames[Int(statement.int64(at: 1))] ?? entity
            objectIDs.append(ids.id(entityName: entityName, primaryKey: statement.int64(at: 0)))
        }
        let result: BatchUpdateResult.Result =
            switch request.resultType {
            case .statusOnly: .status(true)
            case .updatedObjectsCount: .count(count)
            // RETURNING gives rows in no particular order.
            case .updatedObjectIDs: .objectIDs(objectIDs.sorted { $0.primaryKey < $1.primaryKey })
            }
        return BatchUpdateResult(
            result: result, updatedCount: count,
            changes: RemoteChanges(inserted: ObjectIDSet(), updated: updated.build(), deleted: ObjectIDSet()))
    }
}
