package import FerrySQLite
import Foundation

/// The results of one fetch, by the request's ``FetchRequest/ResultType``.
public enum FetchResult: Sendable, Hashable {
    /// For ``FetchRequest/ResultType/managedObjectID``, and for ``FetchRequest/ResultType/managedObject`` until
    /// contexts exist to turn the IDs into objects.
    case objectIDs([ObjectID])
    /// For ``FetchRequest/ResultType/count``.
    case count(Int)
    /// For ``FetchRequest/ResultType/dictionary``: one dictionary per row. A key is present with a `nil` value
    /// when the object has no value there (Core Data's dictionaries leave such keys out).
    case dictionaries([[String: AttributeValue?]])
}

/// Runs fetch requests on one connection to a store and decodes the rows.
///
/// Like its connection, an executor is not `Sendable`: it lives on the connection's executor. It registers the
/// predicate SQL functions on the connection when created, and prepares each query shape once (the connection's
/// statement cache), since the SQL text depends only on the request's shape.
///
/// ```swift
/// let executor = try FetchExecutor(connection: connection, schema: schema, storeIdentifier: metadata.storeIdentifier)
/// let ids = try executor.objectIDs(for: FetchRequest(entityName: "Product"))
/// ```
package struct FetchExecutor {
    package let connection: Connection
    package let schema: StoreSchema
    /// The store's identifier, for the object IDs returned.
    package let storeIdentifier: String

    /// An executor for the store on `connection`.
    ///
    /// - Throws: ``SQLiteError`` when the SQL functions cannot be registered.
    package init(connection: Connection, schema: StoreSchema, storeIdentifier: String) throws {
        self.connection = connection
        self.schema = schema
        self.storeIdentifier = storeIdentifier
        try FetchPredicate.registerSQLFunctions(on: connection)
        try StoredValueCodec.registerKeyTextFunction(on: connection)
    }

    /// Runs `request` and returns the results its result type asks for.
    ///
    /// - Throws: ``FetchRequestError`` or ``FetchPredicateError`` when the request does not fit the model,
    ///   ``StoreError`` `.sqlite` when SQLite fails, ``FetchRequestError`` `.undecodableValue` when a stored value
    ///   does not decode as its attribute's type.
    package func execute(_ request: FetchRequest) throws -> FetchResult {
        switch request.resultType {
        case .managedObject, .managedObjectID: .objectIDs(try objectIDs(for: request))
        case .count: .count(try count(for: request))
        case .dictionary: .dictionaries(try dictionaries(for: request))
        }
    }

    /// The IDs of the objects `request` matches, in its order, whatever its result type.
    ///
    /// - Throws: as ``execute(_:)``.
    package func objectIDs(for request: FetchRequest) throws -> [ObjectID] {
        var ids: [ObjectID] = []
        var maker = ObjectIDMaker(storeIdentifier: storeIdentifier)
        try forEachObject(matching: request) { key, entity in
            ids.append(maker.id(entityName: entity, primaryKey: key))
        }
        return ids
    }

    /// Calls `body` with the primary key and entity name of each object `request` matches, in its order, straight
    /// from the statement: a fetch of a million IDs holds no row objects.
    ///
    /// - Throws: as ``execute(_:)``.
    package func forEachObject(matching request: FetchRequest, _ body: (Int64, String) throws -> Void) throws {
        var request = request
        request.resultType = .managedObjectID
        let compiled = try request.compile(in: schema)
        do {
            let statement = try connection.cachedStatement(compiled.sql)
            defer { statement.reset() }
            try statement.bind(compiled.bindings)
            while try statement.step() {
                guard let entity = schema.entityNames[Int(statement.int64(at: 1))], !statement.isNull(at: 0) else {
                    throw FetchRequestError(
                        code: .undecodableValue,
                        message: "a row of \(request.entityName)'s table has no valid _pk or _ent",
                        entityName: request.entityName)
                }
                try body(statement.int64(at: 0), entity)
            }
        } catch let error as SQLiteError {
            throw StoreError(
                .sqlite, "fetching \(request.entityName) failed", path: connection.path, underlying: error)
        }
    }

    /// How many objects `request` would return (within its limit and offset), as Core Data's `count(for:)`,
    /// whatever its result type.
    ///
    /// - Throws: as ``execute(_:)``.
    package func count(for request: FetchRequest) throws -> Int {
        var request = request
        request.resultType = .count
        let rows = try rows(for: request, compiled: request.compile(in: schema))
        guard let first = rows.first, case .integer(let count) = first[0] else {
            throw FetchRequestError(
                code: .undecodableValue, message: "counting \(request.entityName) returned no number",
                entityName: request.entityName)
        }
        return Int(count)
    }

    /// The dictionaries `request` fetches (its result type is taken to be ``FetchRequest/ResultType/dictionary``).
    ///
    /// - Throws: as ``execute(_:)``.
    package func dictionaries(for request: FetchRequest) throws -> [[String: AttributeValue?]] {
        var request = request
        request.resultType = .dictionary
        let compiled = try request.compile(in: schema)
        let decoder = FetchValueDecoder(
            entityName: request.entityName, blobFolder: BlobFolder(databasePath: connection.path))
        return try rows(for: request, compiled: compiled).map { row in
            var dictionary: [String: AttributeValue?] = [:]
            for (index, column) in compiled.columns.enumerated() {
                if let object = column.object {
                    dictionary.updateValue(try objectValue(row, at: index, object), forKey: column.key)
                    continue
                }
                // `updateValue` keeps the key when the value is nil; a subscript assignment of nil would remove it.
                dictionary.updateValue(
                    try decoder.decode(row[index], column.decoding, key: column.key), forKey: column.key)
            }
            return dictionary
        }
    }

    private func rows(for request: FetchRequest, compiled: FetchQuery) throws -> [Row] {
        do {
            let statement = try connection.cachedStatement(compiled.sql)
            try statement.bind(compiled.bindings)
            return try statement.fetchAll()
        } catch let error as SQLiteError {
            throw StoreError(
                .sqlite, "fetching \(request.entityName) failed", path: connection.path, underlying: error)
        }
    }
}
