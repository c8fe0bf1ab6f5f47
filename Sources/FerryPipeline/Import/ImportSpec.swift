public import FerryIO
public import FerryStore

/// What an import step does: where records come from, which entity they go to, how fields become attributes,
/// and what happens to records that do not fit.
///
/// Pipeline files (`import:` steps) and `ferry import` both produce one. Every record read ends up inserted,
/// updated, unchanged, kept or rejected (see ``StepCounts``).
///
/// ```swift
/// var spec = ImportSpec(entity: "Product", sources: ["SampleData/products.csv"])
/// spec.keys = ["sku"]
/// spec.relationships = [RelationshipMapping(column: "category", relationship: "category", by: "name")]
/// spec.mode = .batch
/// ```
public struct ImportSpec: Sendable {
    /// How each chunk reaches the store.
    public enum Mode: String, Sendable, Hashable, CaseIterable, Codable {
        /// Each chunk on a background context: existing objects fetched by key, validation and lifecycle
        /// callbacks, a save under the merge policy, then `reset()`.
        case context
        /// Each chunk one direct-to-store batch insert (upsert under object-trump); no callbacks.
        case batch
    }

    /// Input paths, `-` for standard input, read in order.
    public var sources: [String]
    /// The input format, or `nil` to infer it from each path's extension.
    public var format: RecordFormat?
    /// The CSV/TSV dialect, or `nil` for the format's default.
    public var dialect: CSVDialect?
    /// Options for JSON inputs.
    public var jsonOptions = JSONReaderOptions()
    /// The entity the records become.
    public var entity: String
    /// The key attributes: a uniqueness constraint of the entity. Empty means the entity's first constraint.
    public var keys: [String] = []
    /// Column-to-attribute mappings. Empty maps every input column named like a stored attribute of the entity.
    public var fields: [FieldMapping] = []
    /// To-one relationships set from a column holding the destination's natural key.
    public var relationships: [RelationshipMapping] = []
    /// Binary attributes read from files whose paths a column holds (relative to the input file).
    public var blobs: [BlobMapping] = []
    /// The folders blob files may be read from; empty: the folder of the input that names them. A path leading
    /// elsewhere (through `..`, an absolute path or a symbolic link) makes its record a reject.
    public var blobRoots: [String] = []
    /// Attributes set to the same value on every record.
    public var constants: [ConstantMapping] = []
    /// How field text becomes typed values (booleans, dates, trimming).
    public var conversion = ConversionOptions()
    /// How chunks reach the store.
    public var mode: Mode = .batch
    /// What a record whose key is already stored does: by default the stored row wins (store-trump). Setting it
    /// names it (``namedMergePolicy``).
    public var mergePolicy: MergePolicy {
        get { namedMergePolicy ?? .mergeByPropertyStoreTrump }
        set { namedMergePolicy = newValue }
    }
    /// The merge policy the step names, or `nil` when it takes the default: a step that keeps stored rows over
    /// differing records (``StepCounts/kept``) without naming its policy is warned about.
    public var namedMergePolicy: MergePolicy?
    /// Records per chunk (and per transaction); `nil` takes the mode's default (``defaultChunkSize(for:)``).
    public var chunkSize: Int?

    /// The records each chunk holds: ``chunkSize``, or the mode's default.
    public var recordsPerChunk: Int { chunkSize ?? Self.defaultChunkSize(for: mode) }

    /// The records each chunk holds when `deferringIndexes` says whether the table's indexes are built once the load
    /// ends: ``chunkSize`` when given; otherwise, in batch mode with deferred indexes, 25,000. Large chunks pay when
    /// each commit rewrites index pages; a first load's commits write none, so half the default holds half the rows
    /// in memory (two chunks are in hand at once) at the same speed. Otherwise ``recordsPerChunk``.
    public func recordsPerChunk(deferringIndexes: Bool) -> Int {
        if let chunkSize { return chunkSize }
        return deferringIndexes && mode == .batch ? Self.deferredLoadChunkSize : recordsPerChunk
    }

    /// Records per chunk of a batch load whose indexes are deferred (see ``recordsPerChunk(deferringIndexes:)``).
    public static let deferredLoadChunkSize = 25_000

    /// 50,000 records per transaction in batch mode, 6,000 in context mode. With keys in any order, a commit
    /// rewrites most of a uniqueness index's pages into the WAL, so fewer, larger commits are much faster; a chunk
    /// stays in memory while it commits (and the reader fills the next), so larger ones cost memory. A batch chunk
    /// is packed rows, a few hundred bytes a record; a context chunk is managed objects, several times more, and two
    /// of them are in hand at once, hence its smaller default, which keeps a context import's peak memory well
    /// under 100 MB. A first load, whose indexes are built at the end, writes no index pages at its commits; a
    /// load into a table holding rows rewrites index pages at each (`--chunk` sets the size; figures in
    /// Tests/Benchmarks/README.md).
    public static func defaultChunkSize(for mode: Mode) -> Int {
        switch mode {
        case .batch: 50_000
        case .context: 6_000
        }
    }

    /// What the step does with input columns the entity lacks (``SchemaContract``): by default it ignores them, and
    /// the report lists them among the unread columns.
    public var schema = SchemaContract.pipelineDefault

    /// Where rejected records are written, in the input's format; `nil` keeps them in the store's ledger only.
    public var rejectsPath: String?
    /// Beyond this many rejects (or this rate), the run fails with nothing further committed.
    public var maxRejects: RejectLimit?
    /// Delete the rows not seen in this run, within a scope.
    public var fullSync: FullSync?
    /// The records replace the entity's rows (`replace: true`, `--replace`): for an entity without a uniqueness
    /// constraint, whose records are otherwise appended. The rows stored before are deleted (a batch delete: delete
    /// rules, history and blob files hold) and the records written in one transaction, so readers see the old rows
    /// until the new ones are all in, and a run that fails or is killed leaves the old rows as they were. Its
    /// chunks commit with that transaction: a resumed replace starts again from the first record.
    public var replacesRows = false

    /// The inputs' headers, read once for this spec and its copies.
    let inputHeaders = InputHeaders()

    /// A spec importing `sources` into `entity` with every default.
    public init(entity: String, sources: [String]) {
        self.entity = entity
        self.sources = sources
    }
}

extension ImportSpec {
    /// Whether the inputs are CSV/TSV without a header line: their columns are named by position (`column1`,
    /// `column2`, …; see ``FerryIO/Record/positionalName(ofField:)``), and without ``fields`` column N sets the
    /// entity's Nth attribute.
    var isHeaderless: Bool { dialect?.hasHeader == false }

    /// The header of input `index`, for mapping columns by name (CSV, TSV); `nil` for JSON, standard input or an
    /// index past the inputs. Without a header line, the positional names of the first record's fields. Read from
    /// the file once per step, however many times it is asked for (see ``InputHeaders``).
    ///
    /// - Throws: ``FerryIOError`` when the input cannot be opened or its header read.
    func header(ofInput index: Int) throws -> [String]? {
        guard let input = headerKey(ofInput: index) else { return nil }
        return try inputHeaders.header(of: input) { try readHeader(ofInput: index) }
    }

    private func readHeader(ofInput index: Int) throws -> [String]? {
        guard index < sources.count else { return nil }
        let path = sources[index]
        guard path != "-", let format = format ?? RecordFormat(inferringFrom: path), format.defaultDialect != nil
        else { return nil }
        let reader = try format.openReader(path: path, dialect: dialect)
        if let names = reader.columnNames { return names }
        let width = (try? reader.next())?.count ?? 0
        return (0..<width).map(Record.positionalName(ofField:))
    }
}

/// One input column read into one attribute.
public struct FieldMapping: Sendable, Hashable {
    /// The input column (CSV header name, or JSON key path).
    public var column: String
    /// The attribute it sets.
    public var attribute: String
    /// Date formats for this column, overriding the step's.
    public var dateFormats: [DateFormat]?
    /// The value used when the field is null or empty (as field text, converted like the field).
    public var defaultText: String?

    /// Maps `column` to `attribute` (the same name when omitted).
    public init(
        column: String, attribute: String? = nil, dateFormats: [DateFormat]? = nil, defaultText: String? = nil
    ) {
        self.column = column
        self.attribute = attribute ?? column
        self.dateFormats = dateFormats
        self.defaultText = defaultText
    }
}

/// A to-one relationship set from a column holding the destination's natural key.
public struct RelationshipMapping: Sendable, Hashable {
    /// The input column holding the key.
    public var column: String
    /// The to-one relationship it sets.
    public var relationship: String
    /// The destination attribute the key matches (a uniqueness-constrained attribute, such as `name`).
    public var key: String
    /// What a key with no destination does.
    public enum OnMissing: String, Sendable, Hashable, CaseIterable {
        /// The record is rejected, naming the key (the default).
        case reject
        /// The destination is created with just the key set, and counted (``StepCounts/created``).
        case create
        /// The record is stored with the relationship empty, and counted (``StepCounts/leftEmpty``); the
        /// relationship must be optional.
        case null
    }

    /// What a key with no destination does: reject the record (the default), create the destination, or leave the
    /// relationship empty.
    public var onMissing: OnMissing
    /// Whether a key with no destination creates one (``OnMissing/create``), the older spelling of `onMissing`.
    public var createsMissing: Bool {
        get { onMissing == .create }
        set { onMissing = newValue ? .create : .reject }
    }
    /// The destination entity as the pipeline file names it, checked against the model; `nil` to take the model's.
    public var destinationEntity: String?

    /// Sets `relationship` from `column` by the destination's attribute `key`.
    public init(
        column: String, relationship: String? = nil, by key: String, createsMissing: Bool = false,
        onMissing: OnMissing? = nil, destinationEntity: String? = nil
    ) {
        self.column = column
        self.relationship = relationship ?? column
        self.key = key
        self.onMissing = onMissing ?? (createsMissing ? .create : .reject)
        self.destinationEntity = destinationEntity
    }
}

/// A binary attribute whose bytes come from a file named in a column.
public struct BlobMapping: Sendable, Hashable {
    /// The input column holding the path, relative to the input file's folder.
    public var column: String
    /// The binary attribute it sets.
    public var attribute: String

    /// Reads `attribute`'s bytes from the file named in `column`.
    public init(column: String, attribute: String? = nil) {
        self.column = column
        self.attribute = attribute ?? column
    }
}

/// An attribute set to the same value on every record of a run.
public struct ConstantMapping: Sendable, Hashable {
    /// What the value is.
    public enum Value: Sendable, Hashable {
        /// The run's number in the ledger.
        case runID
        /// When the run started.
        case runTime
        /// Fixed text, converted like a field.
        case text(String)
    }

    /// The attribute set.
    public var attribute: String
    /// Its value.
    public var value: Value

    /// Sets `attribute` to `value` on every record.
    public init(attribute: String, value: Value) {
        self.attribute = attribute
        self.value = value
    }
}

/// How many rejects a run tolerates.
public enum RejectLimit: Sendable, Hashable {
    /// At most this many rejected records.
    case count(Int)
    /// At most this fraction (0...1) of the records read so far, however few.
    case rate(Double)

    /// Whether `rejected` of `read` records breaks the limit. The importer asks before each chunk commits, with the
    /// counts of the run so far and that chunk's.
    public func isExceeded(rejected: Int, read: Int) -> Bool {
        switch self {
        case .count(let limit): rejected > limit
        case .rate(let rate): Double(rejected) > rate * Double(read)
        }
    }
}

/// Deleting the rows an import did not see: the input is the whole truth for its scope.
public struct FullSync: Sendable, Hashable {
    /// Which rows the input covers (a predicate format string); `nil` for every row of the entity.
    public var scope: String?
    /// The largest fraction (0...1) of the scope's rows the sync may delete without `force`.
    public var maxDeleteFraction: Double
    /// Delete beyond the guard.
    public var force: Bool

    /// A full sync of `scope`, refusing to delete more than `maxDeleteFraction` of it unless `force`.
    public init(scope: String? = nil, maxDeleteFraction: Double = 0.1, force: Bool = false) {
        self.scope = scope
        self.maxDeleteFraction = maxDeleteFraction
        self.force = force
    }
}
