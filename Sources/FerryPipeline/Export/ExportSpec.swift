public import FerryIO
public import FerryStore

/// What to export: an entity's objects (those a predicate selects, in an order), some or all of their attributes,
/// to a CSV, TSV, NDJSON, JSON or Parquet file (or standard output).
///
/// ```swift
/// var spec = ExportSpec(entity: "Product", output: "out/products.csv")
/// spec.predicate = "price > 10 AND category.name ==[c] 'tea'"
/// spec.sort = try ExportSpec.sortDescriptors(parsing: "sku,-price")
/// spec.fields = ["sku", "name", "price", "category.name"]
/// spec.sinceLast = "nightly-feed"
/// let result = try await Exporter(store: store).export(spec)
/// ```
public struct ExportSpec: Sendable, Hashable {
    /// The entity exported (its sub-entities' objects included, with the entity's attributes).
    public var entity: String
    /// A predicate in Core Data's format-string syntax; `nil` exports every object.
    public var predicate: String?
    /// The order; the primary key breaks ties, so the order is the same on every run.
    public var sort: [FetchSortDescriptor]
    /// The key paths written, each a stored attribute (`sku`) or one reached through to-one relationships
    /// (`category.name`); `nil` writes every stored attribute of the entity and no relationship.
    public var fields: [String]?
    /// The file format.
    public var format: RecordFormat
    /// How many rows are written between progress reports and stop checks. The export is one statement in one
    /// read transaction whatever the size, so memory does not depend on it.
    public var fetchBatchSize: Int
    /// The output file, or `-` for standard output (then no manifest is written).
    public var output: String
    /// The name of an incremental export: only objects inserted or updated since the previous export of that name
    /// are written (everything the first time), and the deleted ones are listed in the manifest. Needs a store that
    /// records persistent history.
    public var sinceLast: String?
    /// In a pipeline whose output path names the run (`{date}`, `{time}`, `{run}`), how many of its newest outputs
    /// to keep: older ones are removed, with their manifests, after each export. `nil` keeps them all.
    public var keep: Int?
    /// The key paths a Parquet export is partitioned by, hive-style: `output` is then a dataset folder of
    /// `name=value/part-00000.parquet` files (the partition values in the folder names, not in the files) with a
    /// `_SUCCESS` marker. Empty for one file.
    public var partitionBy: [String]
    /// How a Parquet output is laid out (compression, row groups, pages); ignored by the other formats.
    public var parquet: ParquetWriter.Options

    /// An export of every object of `entity` to `output`, in the format its extension names (CSV when it names
    /// none, as for `-`).
    public init(entity: String, output: String, format: RecordFormat? = nil) {
        self.entity = entity
        self.predicate = nil
        self.sort = []
        self.fields = nil
        self.format = format ?? RecordFormat(inferringFrom: output) ?? .csv
        self.fetchBatchSize = 1000
        self.output = output
        self.sinceLast = nil
        self.keep = nil
        self.parquet = ParquetWriter.Options()
        self.partitionBy = []
    }

    /// Whether a manifest is written beside the output: always, except for standard output.
    public var writesManifest: Bool { output != "-" }

    /// The manifest's path: `<output>.manifest.json`.
    public var manifestPath: String { output + ".manifest.json" }

    /// Sort descriptors from `sku,-price`: comma-separated key paths, ascending unless prefixed with `-` (`+` is
    /// allowed for ascending).
    ///
    /// - Throws: ``PipelineError`` `.invalidExport` for an empty key.
    public static func sortDescriptors(parsing text: String) throws -> [FetchSortDescriptor] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { part in
            var key = part.trimmingSpaces
            var ascending = true
            if let first = key.first, first == "-" || first == "+" {
                ascending = first == "+"
                key = String(key.dropFirst()).trimmingSpaces
            }
            guard !key.isEmpty else {
                throw PipelineError(.invalidExport, "the sort '\(text)' has an empty key; write keys like sku,-price")
            }
            return FetchSortDescriptor(key: key, ascending: ascending)
        }
    }

    /// The sort as `sku,-price`.
    var sortText: [String] { sort.map { ($0.ascending ? "" : "-") + $0.key } }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
