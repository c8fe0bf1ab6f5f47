import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline
@testable import FerryStore

/// A store on a fresh SQLite file (recording history unless told not to) with every attribute type, and helpers to
/// write rows and read exports back.
final class ExportFixture: Sendable {
    static let modelYAML = """
        entities:
          Category:
            attributes:
              name: { type: string, optional: false }
            relationships:
              items: { to: Item, toMany: true, inverse: category, deleteRule: nullify }
            uniquenessConstraints: [[name]]
          Item:
            attributes:
              sku: { type: string, optional: false }
              small: integer16
              big: integer64
              ratio: double
              price: decimal
              active: boolean
              seen_at: date
              token: uuid
              link: uri
              data: binary
            relationships:
              category: { to: Category, inverse: items, deleteRule: nullify }
            uniquenessConstraints: [[sku]]
        """

    let folder: URL
    let path: String
    let container: PersistentContainer
    var store: PersistentStore { container.persistentStore }

    init(recordsHistory: Bool = true) async throws {
        folder = try TestSupport.makeTemporaryFolder()
        path = folder.appendingPathComponent("items.sqlite").path
        var description = PersistentStoreDescription(path: path)
        description.recordsHistory = recordsHistory
        container = PersistentContainer(
            name: "Items", model: try ManagedObjectModel(yaml: Self.modelYAML), storeDescription: description)
        try await container.loadPersistentStores()
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A path in the fixture's folder.
    func file(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Inserts items with a batch insert: each has `sku` and the given values.
    func insertItems(_ items: [[String: AttributeValue?]]) async throws {
        _ = try await store.execute(BatchInsertRequest(entityName: "Item", objects: items), mergePolicy: .error)
    }

    /// Inserts `count` items `SKU-0001`… with `big` = their number.
    func insertNumberedItems(_ range: ClosedRange<Int>) async throws {
        try await insertItems(
            range.map { ["sku": .string(String(format: "SKU-%04d", $0)), "big": .integer(Int64($0))] })
    }

    /// Runs `sql` on a connection of its own (a write by another process, as far as the store is concerned).
    func execute(_ sql: String) throws {
        let connection = try Connection(path: path)
        try PersistentStore.registerSQLFunctions(on: connection)
        try connection.execute(sql)
    }

    /// The text of a file.
    func text(_ name: String) throws -> String {
        try String(contentsOfFile: file(name), encoding: .utf8)
    }

    /// The JSON object in a file.
    func jsonObject(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: file(name)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Exports with `configure` applied to a spec for `entity` and `output`.
    @discardableResult
    func export(
        _ entity: String = "Item", to output: String, _ configure: (inout ExportSpec) throws -> Void = { _ in },
        progress: (@Sendable (ExportProgress) -> Void)? = nil
    ) async throws -> Exporter.Result {
        var spec = ExportSpec(entity: entity, output: output == "-" ? "-" : file(output))
        try configure(&spec)
        return try await Exporter(store: store).export(spec, progress: progress)
    }
}
