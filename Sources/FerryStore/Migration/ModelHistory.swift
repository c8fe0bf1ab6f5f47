package import FerrySQLite
import Foundation

/// Every model version a store has had, oldest first, as kept in its table `ferry_model_history`: the model file's
/// text and version hash, when it was applied, by what, and (for a migration) what the migration did.
///
/// A store records its first model when it is created (a store made before stores kept a history records the model
/// it is opened with, as `adopted`), and one entry per migration: one marker for the whole migration, not one per
/// row changed.
///
/// ```swift
/// let versions = try ModelHistory.read(at: "catalog.sqlite")
/// for version in versions.entries { print(version.version, version.modelHash.prefix(12), version.kind) }
/// ```
public struct ModelHistory: Sendable, Hashable {
    /// One model version the store had.
    public struct Entry: Sendable, Hashable {
        /// 1 for the model the store was created with, then 2, 3… in the order they were applied.
        public var version: Int
        /// The model's ``ManagedObjectModel/versionHash``.
        public var modelHash: String
        /// The model's text, in the model-file format (``ManagedObjectModel/modelFileYAML``).
        public var modelText: String
        /// When the version was applied (ISO 8601, UTC).
        public var appliedAt: String
        /// What applied it: the command or program (and run) that created or migrated the store.
        public var appliedBy: String
        /// `created`, `adopted` (recorded on the first open of a store made before stores kept a history) or
        /// `migrated`.
        public var kind: String
        /// For a migration: its steps and row counts before and after, as one JSON object; empty otherwise.
        public var summary: String
    }

    /// The versions, oldest first.
    public var entries: [Entry]

    /// The version the store is at: the last entry.
    public var current: Entry? { entries.last }

    /// The statement that creates the history table.
    static let createStatement = """
        CREATE TABLE IF NOT EXISTS ferry_model_history (
            version INTEGER PRIMARY KEY, model_hash TEXT NOT NULL, model_yaml TEXT NOT NULL,
            applied_at TEXT NOT NULL, applied_by TEXT NOT NULL, kind TEXT NOT NULL, summary TEXT NOT NULL DEFAULT '')
        """

    /// Reads the history of the store at `path` through a read-only connection.
    ///
    /// - Throws: ``StoreError`` `.openFailed` when the store cannot be opened, `.sqlite` when it cannot be read.
    public static func read(at path: String) throws -> ModelHistory {
        let connection: Connection
        do {
            connection = try Connection(path: path, mode: .readOnly)
        } catch let error as SQLiteError {
            throw StoreError(.openFailed, "cannot open the store to read its model history", path: path, underlying: error)
        }
        do {
            return try read(on: connection)
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "cannot read the store's model history", path: path, underlying: error)
        }
    }

    /// Reads the history on `connection`; empty when the store has no history table.
    package static func read(on connection: Connection) throws -> ModelHistory {
        let exists = try connection.prepare(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ferry_model_history'"
        ).fetchOne()
        guard exists?[0] == .integer(1) else { return ModelHistory(entries: []) }
        let rows = try connection.prepare(
            "SELECT version, model_hash, model_yaml, applied_at, applied_by, kind, summary FROM ferry_model_history "
                + "ORDER BY version"
        ).fetchAll()
        return ModelHistory(
            entries: rows.map { row in
                Entry(
                    version: Int(row[0].integer ?? 0), modelHash: row[1].text ?? "", modelText: row[2].text ?? "",
                    appliedAt: row[3].text ?? "", appliedBy: row[4].text ?? "", kind: row[5].text ?? "",
                    summary: row[6].text ?? "")
            })
    }

    /// Appends a version for `model` (in the caller's transaction) and returns its number.
    @discardableResult
    static func append(
        _ model: ManagedObjectModel, kind: String, appliedBy: String, summary: String = "", on connection: Connection
    ) throws -> Int {
        try connection.execute(createStatement)
        let last = try connection.prepare("SELECT max(version) FROM ferry_model_history").fetchOne()?[0].integer ?? 0
        let insert = try connection.prepare(
            "INSERT INTO ferry_model_history (version, model_hash, model_yaml, applied_at, applied_by, kind, summary) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?)")
        try insert.bind([
            .integer(last + 1), .text(model.versionHash), .text(model.modelFileYAML),
            .text(ISO8601DateFormatter().string(from: Date())), .text(appliedBy), .text(kind), .text(summary),
        ])
        try insert.run()
        return Int(last + 1)
    }

    /// Records `model` as the store's first version when the store has no history yet (a store made before stores
    /// kept one); does nothing otherwise.
    static func adoptIfEmpty(_ model: ManagedObjectModel, on connection: Connection) throws {
        try connection.execute(createStatement)
        let count = try connection.prepare("SELECT count(*) FROM ferry_model_history").fetchOne()?[0].integer ?? 0
        guard count == 0 else { return }
        try append(model, kind: "adopted", appliedBy: defaultAppliedBy, on: connection)
    }

    /// The program that runs, for entries no caller named: its executable's name and process ID.
    static var defaultAppliedBy: String {
        let name = URL(fileURLWithPath: CommandLine.arguments.first ?? "unknown").lastPathComponent
        return "\(name) (pid \(ProcessInfo.processInfo.processIdentifier))"
    }
}

extension StoreSchema {
    /// The entity numbers the store on `connection` gave, by entity name (its `ferry_entities`); empty for a new
    /// store.
    package static func storedEntityIDs(on connection: Connection) throws -> [String: Int] {
        let exists = try connection.prepare(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ferry_entities'"
        ).fetchOne()
        guard exists?[0] == .integer(1) else { return [:] }
        var ids: [String: Int] = [:]
        for row in try connection.prepare("SELECT ent, name FROM ferry_entities").fetchAll() {
            if let name = row[1].text, let ent = row[0].integer { ids[name] = Int(ent) }
        }
        return ids
    }
}
