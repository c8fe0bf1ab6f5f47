/// What to publish: an entity's objects (those a predicate selects), some or all of their attributes, into a
/// PostgreSQL table, in one of three modes.
///
/// ```swift
/// var spec = PublishSpec(entity: "Product", to: "postgresql://ferry@db.internal/catalog")
/// spec.table = "analytics.products"
/// spec.mode = .upsert
/// let result = try await Publisher(store: store).publish(spec)
/// print(result.counts.inserted, result.counts.updated, result.counts.unchanged, result.counts.deleted)
/// ```
public struct PublishSpec: Sendable, Hashable {
    /// How rows reach the table.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Each chunk is copied into a temporary staging table and merged with `INSERT … ON CONFLICT (key) DO UPDATE`,
        /// rewriting only rows whose values differ; after the first publish, only what changed since is sent and
        /// the objects deleted since are deleted. Needs a uniqueness constraint among the columns.
        case upsert
        /// A new table is filled, then swapped in for the old one in one transaction: readers see the old table or
        /// the new one, never a mix. Always sends everything.
        case replace
        /// Rows are copied into the table as they are (COPY only); after the first publish, only the objects
        /// inserted or updated since are sent. For entities that only grow, such as events.
        case append
    }

    /// The entity published (its sub-entities' objects included, with the entity's attributes).
    public var entity: String
    /// The PostgreSQL connection string, a URL or `key=value` pairs, as libpq takes it. Its password is never
    /// logged or reported.
    public var url: String
    /// The table, optionally schema-qualified (`analytics.products`); by default the entity's name in lower case.
    public var table: String
    /// How rows reach the table.
    public var mode: Mode
    /// The key paths published, each a stored attribute (`sku`) or one reached through to-one relationships
    /// (`category.name`); `nil` publishes every stored attribute, and each to-one relationship whose destination
    /// has a single-attribute uniqueness constraint, as that natural key.
    public var fields: [String]?
    /// A predicate in Core Data's format-string syntax; `nil` publishes every object.
    public var predicate: String?
    /// How many rows go in one COPY and one PostgreSQL transaction, committed with its checkpoint.
    public var chunkSize: Int
    /// How many records PostgreSQL may refuse before the publish stops (each refused one is written to the rejects
    /// file with PostgreSQL's reason); `0` stops at the first.
    public var maxRejects: Int
    /// Where refused records go (a CSV file: the row's COPY text, its position and PostgreSQL's reason); `nil`
    /// keeps them in the result only.
    public var rejectsPath: String?

    /// An upsert of every object of `entity` into the table named after it at `url`.
    public init(entity: String, to url: String, table: String? = nil, mode: Mode = .upsert) {
        self.entity = entity
        self.url = url
        self.table = table ?? entity.lowercased()
        self.mode = mode
        self.fields = nil
        self.predicate = nil
        self.chunkSize = 10_000
        self.maxRejects = 0
        self.rejectsPath = nil
    }

    /// What identifies the rows a publish sends: a resumed publish must send the same ones.
    var fingerprint: String {
        [mode.rawValue, entity, fields?.joined(separator: ",") ?? "*", predicate ?? ""].joined(separator: "\u{1F}")
    }
}
