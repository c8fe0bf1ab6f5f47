public import FerryIO
public import FerryStore

/// A pipeline file (`Pipelines/*.yml`): the store, its model, and the steps run in order.
///
/// ```yaml
/// store: ../out/demo/catalog.sqlite     # paths are relative to this file
/// model: catalog.model.yml
/// steps:
///   - import:
///       source: ../SampleData/products.csv
///       entity: Product
///       key: sku
///       relationships:
///         category: { entity: Category, by: name, createMissing: true }
///       rejects: ../out/demo/products.rejects.csv
///   - batchUpdate: { entity: Product, where: "quantity == 0", set: { active: false } }
///   - batchDelete: { entity: Product, where: "active == NO" }
///   - export: { entity: Product, sort: sku, to: ../out/demo/products.csv }
///   - snapshot: { to: ../out/demo/snapshot }
/// ```
///
/// See ``PipelineFileParser`` for every key.
public struct PipelineFile: Sendable {
    /// The file's path, as given.
    public var path: String
    /// The store file (resolved against the pipeline file's folder).
    public var store: String
    /// The model file, resolved; `nil` to use the store's own model.
    public var model: String?
    /// Whether the store records persistent history (needed by `sinceLast` exports); off by default, as in Core
    /// Data (a store that already records history keeps recording).
    public var recordsHistory = false
    /// Whether a store whose model differs from `model` is migrated before the steps when the migration is inferable,
    /// removes no data and is not blocked by data (`migration: automatic`, the default); `migration: manual` leaves
    /// every migration to `ferry migrate`.
    public var migratesAutomatically = true
    /// The formats a text attribute turned date is read in when the store is migrated, tried in order
    /// (`migration: { mode: automatic, dateFormats: [dd/MM/yyyy, iso8601] }`); `[.iso8601]` by default. The import
    /// steps' `dateFormats` are not these.
    public var migrationDateFormats: [DateFormat] = [.iso8601]
    /// The steps, in order.
    public var steps: [PipelineStep] = []

    /// An empty pipeline for `store`.
    public init(path: String, store: String, model: String?) {
        self.path = path
        self.store = store
        self.model = model
    }
}

/// One step of a pipeline.
public struct PipelineStep: Sendable {
    /// What the step does.
    public enum Action: Sendable {
        case importRecords(ImportSpec)
        case batchUpdate(BatchUpdateStep)
        case batchDelete(BatchDeleteStep)
        case export(ExportSpec)
        case snapshot(SnapshotStep)
        case publish(PublishSpec)
    }

    /// The step's name (given, or the kind and entity), unique in the pipeline; the ledger and `--resume` use it.
    public var name: String
    /// The line the step starts on.
    public var line: Int
    public var action: Action

    /// The kind, as pipeline files spell it.
    public var kind: String {
        switch action {
        case .importRecords: "import"
        case .batchUpdate: "batchUpdate"
        case .batchDelete: "batchDelete"
        case .export: "export"
        case .snapshot: "snapshot"
        case .publish: "publish"
        }
    }
}

/// A batch update step: `set` maps attributes to a constant (converted like a field) or, after `=`, an
/// expression: `price: "= price * 1.1"`, `updated_at: "= now()"`.
public struct BatchUpdateStep: Sendable {
    public var entity: String
    /// A predicate format string; `nil` for every object.
    public var predicate: String?
    /// Attribute → value text, in file order.
    public var set: [(attribute: String, value: String)]
}

/// A batch delete step: the objects of `entity` matching `predicate`, with the model's delete rules.
public struct BatchDeleteStep: Sendable, Hashable {
    public var entity: String
    /// A predicate format string; `nil` deletes every object of the entity.
    public var predicate: String?
}

/// A snapshot step: a consistent copy of the store, its blobs and a manifest, in `output` (which may name the run:
/// see ``PipelineFileParser``).
public struct SnapshotStep: Sendable, Hashable {
    public var output: String
    /// `replace: true`: a snapshot already in `output` is replaced by the new one once it is complete; otherwise
    /// the step fails rather than overwrite it.
    public var replacesExisting = false
    /// With an output path that names the run (`{date}`, `{time}`, `{run}`), how many of the newest snapshots to
    /// keep: older ones are removed after each snapshot. `nil` keeps them all.
    public var keep: Int?
    /// `format: parquet`: a Parquet dataset of the whole store, one sub-folder per entity (see
    /// ``ParquetSnapshotter``), instead of a copy of the store.
    public var writesParquet = false
    /// How the Parquet files are laid out, with ``writesParquet``.
    public var parquet = ParquetWriter.Options()
}
