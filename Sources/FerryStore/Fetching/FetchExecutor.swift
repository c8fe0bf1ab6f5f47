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
        try forEachObject(matching: request) { key, entity in
            ids.append(ObjectID(entityName: entity, primaryKey: key, storeIdentifier: storeIdentifier))
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

/// Turns stored values back into attribute values, by the attribute's type and the storage encodings of
/// ``StoreSchema``: integers and booleans INTEGER, doubles REAL, dates REAL seconds since 1970, decimals exact
/// TEXT, UUIDs and URIs TEXT, binary and transformable values BLOB — or, for a binary value stored in a file, the
/// TEXT of its ``BlobReference``, read from `blobFolder`.
struct FetchValueDecoder {
    let entityName: String
    /// The store's blob folder (`nil` in memory), where externally stored binary values are read.
    let blobFolder: BlobFolder?

    /// - Throws: ``FetchRequestError`` `.undecodableValue` for a value that does not fit; ``StoreError``
    ///   `.invalidBlobReference` for a binary column holding TEXT that is not a blob reference, `.blobFileMissing` or
    ///   `.blobFileFailed` when the file cannot be read.
    func decode(_ value: SQLiteValue, _ decoding: FetchQuery.Decoding, key: String) throws -> AttributeValue? {
        if case .null = value { return nil }
        if case .attribute(.binary) = decoding, case .text(let text) = value {
            return .binary(try readBlob(text, key: key))
        }
        let decoded: AttributeValue?
        switch decoding {
        case .attribute(let type): decoded = Self.decode(value, as: type)
        case .integer: decoded = value.integer.map(AttributeValue.integer)
        case .double: decoded = value.real.map(AttributeValue.double)
        case .decimalAggregate(let function):
            guard case .text(let list) = value else { throw undecodable(key, value, "decimal texts") }
            let texts = list.split(separator: " ")
            let values = texts.compactMap { Self.decimal(from: String($0)) }
            guard !values.isEmpty, values.count == texts.count else { throw undecodable(key, value, "decimal texts") }
            return Self.aggregate(values, function)
        }
        guard let decoded else {
            if case .attribute(let type) = decoding { throw undecodable(key, value, type.name) }
            throw undecodable(key, value, "a number")
        }
        return decoded
    }

    /// `value` as an attribute of `type`, or `nil` when it is not a valid encoding of one.
    static func decode(_ value: SQLiteValue, as type: AttributeType) -> AttributeValue? {
        switch (type, value) {
        case (.integer16, .integer(let integer)), (.integer32, .integer(let integer)),
            (.integer64, .integer(let integer)):
            return .integer(integer)
        case (.integer16, .real(let real)), (.integer32, .real(let real)), (.integer64, .real(let real)):
            return Int64(exactly: real).map(AttributeValue.integer)
        case (.double, _), (.float, _):
            return value.real.map(AttributeValue.double)
        case (.decimal, .text(let text)):
            return decimal(from: text).map(AttributeValue.decimal)
        case (.decimal, .integer(let integer)):
            return .decimal(Decimal(integer))
        case (.decimal, .real(let real)):
            // Only a store written by something else holds a REAL here; its shortest text is the best reading.
            return decimal(from: "\(real)").map(AttributeValue.decimal)
        case (.string, .text(let text)):
            return .string(text)
        case (.boolean, .integer(let integer)):
            return integer == 0 || integer == 1 ? .boolean(integer == 1) : nil
        case (.date, _):
            return value.real.map { .date(Date(timeIntervalSince1970: $0)) }
        case (.binary, .blob(let bytes)):
            return .binary(Data(bytes))
        case (.uuid, .text(let text)):
            return UUID(uuidString: text).map(AttributeValue.uuid)
        case (.uri, .text(let text)):
            return URL(string: text).map(AttributeValue.uri)
        case (.transformable, .blob(let bytes)):
            return .transformable(Data(bytes))
        default:
            return nil
        }
    }

    /// The exact decimal `text` spells, or `nil` unless the whole text is a plain number (`Decimal(string:)` alone
    /// would read `12abc` as 12).
    static func decimal(from text: String) -> Decimal? {
        var sawDigit = false
        for (offset, character) in text.enumerated() {
            switch character {
            case "0"..."9": sawDigit = true
            case "-", "+": guard offset == 0 else { return nil }
            case ".", "e", "E": continue
            default: return nil
            }
        }
        guard sawDigit else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// `function` over `values`, exactly.
    static func aggregate(_ values: [Decimal], _ function: FetchAggregate.Function) -> AttributeValue? {
        switch function {
        case .count: return .integer(Int64(values.count))
        case .sum: return .decimal(values.reduce(0, +))
        case .average: return .decimal(values.reduce(0, +) / Decimal(values.count))
        case .min: return values.min().map(AttributeValue.decimal)
        case .max: return values.max().map(AttributeValue.decimal)
        }
    }

    /// The bytes of the blob `text` refers to. Only a text of exactly the reference's shape becomes a path.
    private func readBlob(_ text: String, key: String) throws -> Data {
        guard let reference = BlobReference(storedText: text) else {
            throw StoreError(
                .invalidBlobReference,
                "'\(key)' of \(entityName) holds TEXT that is not a blob reference (expected '\(BlobReference.prefix)' "
                    + "and 64 lowercase hex digits); the store was changed outside Ferry, and the value is not read")
        }
        guard let blobFolder else {
            throw StoreError(
                .blobFileMissing,
                "'\(key)' of \(entityName) refers to a blob file, but an in-memory store has no blob folder")
        }
        return try blobFolder.read(reference)
    }

    private func undecodable(_ key: String, _ value: SQLiteValue, _ expected: String) -> FetchRequestError {
        FetchRequestError(
            code: .undecodableValue,
            message: "'\(key)' of \(entityName) holds \(Self.storageClass(of: value)), which is not \(expected)",
            entityName: entityName, keyPath: key)
    }

    private static func storageClass(of value: SQLiteValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer: "an INTEGER"
        case .real: "a REAL"
        case .text: "TEXT"
        case .blob: "a BLOB"
        }
    }
}
