package import FerrySQLite
import Foundation

/// What a store records about itself in `ferry_metadata`: who made it and with which model.
public struct StoreMetadata: Sendable, Hashable {
    /// A random identifier given to the store when it was created.
    public var storeIdentifier: String
    /// The ``ManagedObjectModel/versionHash`` of the model the store was created with.
    public var modelHash: String
    /// When the store was created (ISO 8601, UTC).
    public var createdAt: String
    /// The version of Ferry's own table layout.
    public var formatVersion: Int

    /// The layout version this code writes and reads.
    public static let currentFormatVersion = 1

    /// The `ferry_metadata` key under which a store keeps its model, as model-file YAML
    /// (``ManagedObjectModel/modelFileYAML``).
    static let modelTextKey = "model_yaml"

    /// Creates the store's tables on first use, or checks that an existing store was made with `schema`'s model.
    ///
    /// Either way the store then keeps `schema`'s model as text (key `model_yaml`), so that tools can open it
    /// without a model file (``PersistentStore/storedModel(at:)``): a store created before stores kept their models
    /// gets it on its first open, and as validation rules and fetch request templates are not part of the version
    /// hash, a store keeps those of the model it was last opened with.
    ///
    /// Runs in one immediate transaction, so two processes opening a new store at once cannot both create it.
    /// - Returns: the store's metadata.
    /// - Throws: ``StoreError`` with ``StoreError/Code/incompatibleModel`` when the store was created with another
    ///   model (migrations come later), ``StoreError/Code/notAFerryStore`` for an SQLite file that has tables but
    ///   no Ferry metadata, or ``StoreError/Code/sqlite``.
    package static func prepare(_ connection: Connection, schema: StoreSchema) throws -> StoreMetadata {
        do {
            return try connection.transaction(.immediate) {
                if let existing = try read(connection) {
                    try StoreMigrationState.refuseIfMidMigration(connection)
                    try check(existing, against: schema, path: connection.path)
                    try keep(schema.model, on: connection)
                    try ModelHistory.adoptIfEmpty(schema.model, on: connection)
                    return existing
                }
                let metadata = try create(connection, schema: schema)
                try keep(schema.model, on: connection)
                try ModelHistory.append(
                    schema.model, kind: "created", appliedBy: ModelHistory.defaultAppliedBy, on: connection)
                return metadata
            }
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "cannot prepare the store", path: connection.path, underlying: error)
        }
    }

    /// The metadata of a store opened read-only, checked against `schema` as ``prepare(_:schema:)`` checks an
    /// existing store's; nothing is written.
    ///
    /// - Throws: as ``prepare(_:schema:)``; ``StoreError/Code/notAFerryStore`` for a file without Ferry metadata.
    package static func readChecked(_ connection: Connection, schema: StoreSchema) throws -> StoreMetadata {
        do {
            return try connection.transaction(.deferred) {
                guard let existing = try read(connection) else {
                    throw StoreError(
                        .notAFerryStore, "the file has no Ferry metadata, and a store opened read-only is not created",
                        path: connection.path)
                }
                try StoreMigrationState.refuseIfMidMigration(connection)
                try check(existing, against: schema, path: connection.path)
                return existing
            }
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "cannot read the store's metadata", path: connection.path, underlying: error)
        }
    }

    /// The metadata of an existing Ferry store, or `nil` when `ferry_metadata` is absent or empty.
    static func read(_ connection: Connection) throws -> StoreMetadata? {
        guard let values = try readValues(connection), let hash = values["model_hash"]?.text else { return nil }
        return StoreMetadata(
            storeIdentifier: values["store_identifier"]?.text ?? "", modelHash: hash,
            createdAt: values["created_at"]?.text ?? "",
            formatVersion: Int(values["format_version"]?.integer ?? 0))
    }

    /// Every key and value of `ferry_metadata`, or `nil` when the table does not exist.
    static func readValues(_ connection: Connection) throws -> [String: SQLiteValue]? {
        let exists = try connection.prepare(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ferry_metadata'"
        ).fetchOne()
        guard exists?[0] == .integer(1) else { return nil }
        var values: [String: SQLiteValue] = [:]
        for row in try connection.prepare("SELECT key, value FROM ferry_metadata").fetchAll() {
            if let key = row[0].text { values[key] = row[1] }
        }
        return values
    }

    /// Stores `model`'s text under ``modelTextKey`` unless that very text is there already. A model whose text
    /// would not read back as an equal model (a number a model file cannot spell, such as infinity, or a text
    /// starting with U+FEFF, which YAML reading drops) is not stored: the store then keeps what it had, and
    /// ``PersistentStore/storedModel(at:)`` reports it.
    static func keep(_ model: ManagedObjectModel, on connection: Connection) throws {
        let text = model.modelFileYAML
        let stored = try connection.prepare("SELECT value FROM ferry_metadata WHERE key = ?")
        try stored.bind([.text(modelTextKey)])
        if try stored.fetchOne()?[0].text == text { return }
        // Equality, not just the version hash: validation rules and templates must come back too.
        guard (try? ManagedObjectModel(yaml: text)) == model else { return }
        let insert = try connection.prepare("INSERT OR REPLACE INTO ferry_metadata (key, value) VALUES (?, ?)")
        try insert.bind([.text(modelTextKey), .text(text)])
        try insert.run()
    }

    private static func check(_ existing: StoreMetadata, against schema: StoreSchema, path: String) throws {
        let modelHash = schema.model.versionHash
        guard existing.modelHash == modelHash else {
            throw StoreError(
                .incompatibleModel,
                "the store was created with a different model (store model \(existing.modelHash.prefix(12)), "
                    + "this model \(modelHash.prefix(12))); open it with the model it was created with, or migrate it "
                    + "to this model first (`ferry migrate --store PATH --model FILE --plan` shows what that does)",
                path: path)
        }
        guard existing.formatVersion == currentFormatVersion else {
            throw StoreError(
                .incompatibleModel,
                "the store uses Ferry layout version \(existing.formatVersion); this Ferry reads version "
                    + "\(currentFormatVersion)", path: path)
        }
    }

    private static func create(_ connection: Connection, schema: StoreSchema) throws -> StoreMetadata {
        let foreign = try connection.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'ferry\\_%' ESCAPE '\\' "
                + "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' LIMIT 1"
        ).fetchOne()
        if let table = foreign?[0].text {
            throw StoreError(
                .notAFerryStore,
                "the file is an SQLite database with its own tables (such as '\(table)') but no Ferry metadata; "
                    + "point Ferry at a new file",
                path: connection.path)
        }
        for statement in schema.createStatements { try connection.execute(statement) }
        let entity = try connection.prepare(
            "INSERT INTO ferry_entities (ent, name, parent, table_name) VALUES (?, ?, ?, ?)")
        for (id, name) in schema.entityNames.sorted(by: { $0.key < $1.key }) {
            let parent = schema.model.entity(named: name)?.parentEntity.flatMap { schema.mapping(for: $0)?.entityID }
            try entity.bind([
                .integer(Int64(id)), .text(name), parent.map { .integer(Int64($0)) } ?? .null,
                .text(schema.model.rootEntity(of: name)),
            ])
            try entity.run()
        }
        let metadata = StoreMetadata(
            storeIdentifier: UUID().uuidString, modelHash: schema.model.versionHash,
            createdAt: ISO8601DateFormatter().string(from: Date()), formatVersion: currentFormatVersion)
        let insert = try connection.prepare("INSERT INTO ferry_metadata (key, value) VALUES (?, ?)")
        for (key, value) in [
            ("store_identifier", SQLiteValue.text(metadata.storeIdentifier)), ("model_hash", .text(metadata.modelHash)),
            ("created_at", .text(metadata.createdAt)), ("format_version", .integer(Int64(metadata.formatVersion))),
        ] {
            try insert.bind([.text(key), value])
            try insert.run()
        }
        return metadata
    }
}
