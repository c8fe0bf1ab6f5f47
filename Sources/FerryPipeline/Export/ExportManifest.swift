import FerryIO
public import FerryStore
public import Foundation

/// The record written beside an export as `<output>.manifest.json`: what was exported, from which state of the
/// store, and how to check the file.
///
/// ```json
/// {
///   "created_at" : "2026-01-05T09:00:00Z",
///   "entity" : "Product",
///   "fields" : ["sku", "name", "price"],
///   "file" : "products.csv",
///   "format" : "csv",
///   "history_token" : 42,
///   "predicate" : "price > 10",
///   "rows" : 15,
///   "runs" : [1, 2],
///   "sha256" : "…",
///   "sort" : ["sku", "-price"]
/// }
/// ```
///
/// A partitioned Parquet export (a dataset folder) adds `files`: each file's path in the folder, rows, bytes and
/// SHA-256; its `sha256` is then that of the listing `sha256sum` prints for them (`<hex>  <path>` lines, in the
/// order of `files`), and `bytes` their total.
///
/// An incremental export (`since_last`) adds the name, the token it started after (`null` the first time) and
/// `deleted`: the tombstones (uniqueness-constrained values) of the objects deleted since, to apply before the rows.
public struct ExportManifest: Sendable, Hashable, Encodable {
    /// The incremental part of a manifest.
    public struct SinceLast: Sendable, Hashable, Encodable {
        /// The export's name.
        public var name: String
        /// The history token of the previous export of that name, `nil` for the first.
        public var previousToken: Int64?

        enum CodingKeys: String, CodingKey {
            case name
            case previousToken = "previous_token"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(previousToken, forKey: .previousToken)
        }
    }

    /// One file of a dataset.
    public struct DatasetFile: Sendable, Hashable, Encodable {
        /// The path inside the dataset folder, `category=Tea/part-00000.parquet`.
        public var path: String
        public var rows: Int
        public var bytes: Int
        /// 64 lowercase hex digits.
        public var sha256: String
    }

    public var entity: String
    public var predicate: String?
    public var sort: [String]
    public var fields: [String]
    public var format: String
    /// The output's file name (the manifest sits beside it).
    public var file: String
    public var rows: Int
    public var bytes: Int
    /// The SHA-256 of the output file, 64 lowercase hex digits.
    public var sha256: String
    /// The latest history transaction the export's snapshot saw; `nil` when the store has recorded none.
    public var historyToken: Int64?
    /// The successful ledger runs (`ferry_runs`) whose data the snapshot holds.
    public var runs: [Int64]
    /// When the export was made, ISO 8601 UTC.
    public var createdAt: String
    public var sinceLast: SinceLast?
    /// For an incremental export: the tombstones of the objects deleted since the previous one.
    public var deleted: [[String: ManifestValue]]?
    /// For a partitioned export: the key paths it is partitioned by and its files.
    public var partitionBy: [String]?
    public var files: [DatasetFile]?

    enum CodingKeys: String, CodingKey {
        case entity, predicate, sort, fields, format, file, rows, bytes, sha256, runs, deleted, files
        case partitionBy = "partition_by"
        case historyToken = "history_token"
        case createdAt = "created_at"
        case sinceLast = "since_last"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entity, forKey: .entity)
        try container.encode(predicate, forKey: .predicate)
        try container.encode(sort, forKey: .sort)
        try container.encode(fields, forKey: .fields)
        try container.encode(format, forKey: .format)
        try container.encode(file, forKey: .file)
        try container.encode(rows, forKey: .rows)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(historyToken, forKey: .historyToken)
        try container.encode(runs, forKey: .runs)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(sinceLast, forKey: .sinceLast)
        try container.encodeIfPresent(deleted, forKey: .deleted)
        try container.encodeIfPresent(partitionBy, forKey: .partitionBy)
        try container.encodeIfPresent(files, forKey: .files)
    }

    /// The manifest as pretty-printed JSON with sorted keys, ending with a line break.
    public var jsonText: String { ManifestJSON.text(of: self) }
}

/// A scalar value in a manifest: a tombstone's attribute value, written as the export writes values.
public enum ManifestValue: Sendable, Hashable, Encodable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case boolean(Bool)

    /// `value` as an export writes it: dates as ISO 8601 text, UUIDs and URIs as text, binary as Base64.
    public init(_ value: AttributeValue) {
        switch value {
        case .integer(let integer): self = .integer(integer)
        case .double(let double): self = .double(double)
        case .decimal(let decimal): self = .decimal(decimal)
        case .string(let string): self = .string(string)
        case .boolean(let boolean): self = .boolean(boolean)
        case .date(let date): self = .string(ISO8601Text.string(seconds: date.timeIntervalSince1970))
        case .binary(let data), .transformable(let data): self = .string(data.base64EncodedString())
        case .uuid(let uuid): self = .string(uuid.uuidString.lowercased())
        case .uri(let url): self = .string(url.absoluteString)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .decimal(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        }
    }
}

/// JSON text for manifests and `--json` reports: pretty-printed, sorted keys, slashes unescaped.
enum ManifestJSON {
    static func text(of value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain value types cannot fail; an empty object is the fallback all the same.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Writes `text` to `path` through a temporary file renamed into place.
    ///
    /// - Throws: ``FerryIOError`` when writing fails.
    static func write(_ text: String, to path: String) throws {
        let output = try OutputFile(path: path)
        try output.write(text)
        try output.commit()
    }
}
