public import FerryStore

/// A custom stage of a staged migration, as Core Data's `NSCustomMigrationStage`: handlers around the inferred
/// migration from one model version to the next. `willMigrate` runs on the old model (de-duplicate rows before a
/// constraint is added), `didMigrate` on the new one (back-fill a new attribute); each is given a container whose
/// store is loaded with that model.
///
/// ```swift
/// let stage = CustomMigrationStage(into: "v2", willMigrate: { container in
///     var request = BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Product",
///         predicate: try FetchPredicate(format: "sku == nil")))
///     _ = try await container.persistentStore.execute(request)
/// })
/// try await StoreMigration(storePath: "catalog.sqlite", modelPath: "catalog.model", stages: [stage])
///     .run(allowsDestructiveChanges: false)
/// ```
///
/// In a versioned model folder, `vN.migration.yml` declares the same without Swift (see ``StoreMigration``).
public struct CustomMigrationStage: Sendable {
    /// A handler, given a container loaded with the stage's old or new model.
    public typealias Handler = @Sendable (PersistentContainer) async throws -> Void

    /// The version the stage migrates into (`v2`), or the version hash of its model.
    public var destination: String
    /// Runs on the old model before the inferred migration.
    public var willMigrate: Handler?
    /// Runs on the new model after it.
    public var didMigrate: Handler?

    /// Creates a stage into the version `destination` (its name in a versioned model folder, `v2`, or in an
    /// `.xcdatamodeld`, `Catalog 2`; or its model's version hash).
    public init(into destination: String, willMigrate: Handler? = nil, didMigrate: Handler? = nil) {
        self.destination = destination
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
    }
}
