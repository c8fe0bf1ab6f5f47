import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation

/// A store file and input files in a temporary folder, for import tests, with SQL access to the result.
final class ImportFixture {
    static let modelYAML = """
        entities:
          Category:
            attributes:
              name: { type: string, optional: false }
              productCount: { type: integer64, default: 0, derivation: "@count products" }
            relationships:
              products: { to: Product, toMany: true, inverse: category, deleteRule: deny }
            uniquenessConstraints: [[name]]
          Product:
            attributes:
              sku: { type: string, optional: false, regex: "^SKU-[0-9]+$" }
              name: { type: string, optional: false }
              price: { type: decimal, min: 0 }
              quantity: integer32
              active: { type: boolean, optional: false, default: true }
              created_at: date
            relationships:
              category: { to: Category, inverse: products, deleteRule: nullify }
            uniquenessConstraints: [[sku]]
        """

    let folder: URL
    let container: PersistentContainer
    var storePath: String { container.storeDescription.sqlitePath }

    /// A fresh store; `configure` runs before it loads (to add custom validators).
    init(_ configure: (PersistentContainer) -> Void = { _ in }) async throws {
        folder = try TestSupport.makeTemporaryFolder()
        let model = try ModelFile(yaml: Self.modelYAML).model
        container = PersistentContainer(
            name: "catalog", model: model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("catalog.sqlite").path))
        configure(container)
        try await container.loadPersistentStores()
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes `text` to the file `name` in the folder and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// A path in the folder (not created).
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Rows of `sql`, on a read-only connection of its own.
    func rows(_ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: storePath, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { row in (0..<row.count).map { row[$0] } }
    }

    /// Runs an import of `sources` into Product (or `entity`), adjusted by `configure`.
    func importProducts(
        _ sources: [String], entity: String = "Product", name: String = "products", resume: Bool = false,
        stop: StopSignal? = nil, _ configure: (inout ImportSpec) -> Void = { _ in },
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) async throws -> ImportResult {
        var spec = ImportSpec(entity: entity, sources: sources)
        spec.relationships = [RelationshipMapping(column: "category", by: "name", createsMissing: true)]
        spec.chunkSize = 2
        configure(&spec)
        return try await Importer(container: container).run(
            spec, name: name, resume: resume, stop: stop, progress: progress)
    }

    static let products = """
        sku,name,category,price,quantity,active,created_at
        SKU-1,Espresso,Coffee,24.90,120,true,2026-01-05T09:00:00Z
        SKU-2,Sencha,Tea,8.75,200,yes,2026-01-07
        SKU-3,Bad price,Tea,abc,1,true,
        SKU-4,Negative,Tea,-1,1,true,
        bad-sku,Wrong sku,Tea,1,1,true,
        SKU-5,,Tea,1.00,1,true,
        SKU-6,Croissant,Bakery,1.95,40,false,2026-01-09T07:00:00+01:00
        """
}
