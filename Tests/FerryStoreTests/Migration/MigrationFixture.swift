import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// Stores for migration tests: created by opening them with a first model, filled with rows through SQL, then
/// migrated and read back through the store with the new model.
enum MigrationFixture {
    /// A model from YAML text.
    static func model(_ yaml: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(yaml: yaml)
    }

    /// Creates a store at `path` with `yaml`'s model and runs `sql` on it.
    static func makeStore(at path: String, _ yaml: String, rows sql: String = "") async throws {
        let store = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model(yaml))
        _ = store
        if !sql.isEmpty { try Connection(path: path).execute(sql) }
    }

    /// Every row of `entity` as dictionaries sorted by `key`, read through a store opened with `yaml`'s model.
    static func rows(at path: String, _ yaml: String, entity: String, sortedBy key: String) async throws
        -> [[String: AttributeValue?]]
    {
        let store = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model(yaml))
        let result = try await store.fetch(
            FetchRequest(
                entityName: entity, sortDescriptors: [FetchSortDescriptor(key: key)], resultType: .dictionary))
        guard case .dictionaries(let rows) = result else { return [] }
        return rows
    }

    /// The first column of each row `sql` returns.
    static func column(at path: String, _ sql: String) throws -> [SQLiteValue] {
        let connection = try Connection(path: path, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { $0[0] }
    }

    /// Runs `body` with the path of a store file in a new temporary folder.
    static func withStorePath(_ body: (String) async throws -> Void) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder.appendingPathComponent("store.sqlite").path)
    }
}
